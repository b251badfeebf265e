# frozen_string_literal: true

require "yaml"
require_relative "../core"

module Arena
  module Bundle
    # The app's Bundler settings that decide what its bundle holds, read as
    # Bundler reads them (lib/bundler/settings.rb): each key from the app's
    # config (`.bundle/config`, or $BUNDLE_APP_CONFIG, relative to the app),
    # else the environment, else the user's config (~/.bundle/config,
    # $BUNDLE_CONFIG, $BUNDLE_USER_CONFIG, $BUNDLE_USER_HOME). The path is
    # decided per level, as Bundler does: the first level that sets `path`,
    # `deployment` (which means vendor/bundle), `path.system` or
    # `disable_shared_gems` decides it.
    #
    #   without, with, only  group names (strings)
    #   path                 where the app's gems are installed, absolute, nil for the system's
    #   deployment, frozen   true when set
    #   config               the app's config file read (it may not exist)
    Settings = Struct.new(:without, :with, :only, :path, :deployment, :frozen, :config, keyword_init: true) do
      def self.none = new(without: [], with: [], only: [], path: nil, deployment: false, frozen: false, config: nil).freeze

      # root: the app's directory (its Gemfile's).
      def self.read(root, env: ENV, home: Dir.home)
        config = app_config(root, env)
        files = env["BUNDLE_IGNORE_CONFIG"] ? [nil, nil] : [config, global_config(env, home)]
        layers = [load(files[0]), env.to_h.select { |k, _| k.start_with?("BUNDLE_") }, load(files[1])]
        from_layers(layers, root: root, config: config)
      end

      # layers: the app's, the environment's and the user's settings, as
      # BUNDLE_* keys and their raw values, in that order.
      def self.from_layers(layers, root:, config: nil)
        first = ->(key) { layers.map { |l| l["BUNDLE_#{key}"] }.compact.first }
        deployment = bool(first.call("DEPLOYMENT"))
        new(without: list(first.call("WITHOUT")), with: list(first.call("WITH")), only: list(first.call("ONLY")),
          path: path(layers, root), deployment: deployment, frozen: deployment || bool(first.call("FROZEN")),
          config: config).freeze
      end

      def self.path(layers, root)
        layers.each do |l|
          path = l["BUNDLE_PATH"]
          path = "vendor/bundle" if path.nil? && bool(l["BUNDLE_DEPLOYMENT"])
          system = l["BUNDLE_PATH__SYSTEM"]
          shared = l["BUNDLE_DISABLE_SHARED_GEMS"]
          next if path.nil? && system.nil? && shared.nil?
          return nil if bool(system) || (!shared.nil? && !bool(shared)) || path.nil? || path.to_s.empty?
          return File.expand_path(path.to_s, root)
        end
        nil
      end

      def self.app_config(root, env)
        dir = env["BUNDLE_APP_CONFIG"].to_s.empty? ? ".bundle" : env["BUNDLE_APP_CONFIG"]
        File.join(File.expand_path(dir, root), "config")
      end

      def self.global_config(env, home)
        return env["BUNDLE_CONFIG"] unless env["BUNDLE_CONFIG"].to_s.empty?
        return env["BUNDLE_USER_CONFIG"] unless env["BUNDLE_USER_CONFIG"].to_s.empty?
        return File.join(env["BUNDLE_USER_HOME"], "config") unless env["BUNDLE_USER_HOME"].to_s.empty?
        home && File.join(home, ".bundle", "config")
      end

      # A config file's keys, {} when it is absent, empty or ignored.
      def self.load(file)
        return {} if file.nil? || !File.file?(file)
        data = YAML.safe_load_file(file)
        data.is_a?(Hash) ? data.transform_keys { |k| k.to_s.gsub("-", "___") }.transform_values { |v| v&.to_s } : {}
      rescue Psych::Exception => e
        raise UsageError, "#{file}: not a Bundler config file (#{e.message.lines.first.strip})"
      end

      def self.list(value) = value.to_s.tr(" ", ":").split(":").reject(&:empty?)

      def self.bool(value) = !(value.nil? || value == false || value.to_s.match?(/\A(false|f|no|n|0|)\z/i))

      # The groups Bundler loads of `groups` (every group the Gemfile names):
      # all but those left out and the optional ones, plus those asked for;
      # with `only`, just those.
      def requested(groups, optional: [])
        names = groups.map(&:to_s)
        chosen = names - without - optional.map(&:to_s) + with
        chosen &= only unless only.empty?
        chosen.uniq
      end

      # What the overlay's own config holds so that Bundler loads the app's
      # groups and the overlay's: the app's choice of groups, never its
      # frozen or deployment settings (the overlay writes its own lock), and
      # the system's gems beside the app's path (read through GEM_PATH).
      def overlay_config(group)
        config = {"BUNDLE_WITHOUT" => without, "BUNDLE_WITH" => with, "BUNDLE_ONLY" => only.empty? ? [] : only + [group]}
          .reject { |_, v| v.empty? }.transform_values { |v| v.join(":") }
        config["BUNDLE_PATH__SYSTEM"] = "true" if path
        config.merge("BUNDLE_FROZEN" => "false", "BUNDLE_DEPLOYMENT" => "false")
      end

      # The app's gems as Bundler installs them under its path (ruby/3.1.0).
      def gem_dir = path && File.join(path, RUBY_ENGINE, RbConfig::CONFIG["ruby_version"])

      def to_h = {without: without, with: with, only: only, path: path, deployment: deployment, frozen: frozen}.compact
    end
  end
end
