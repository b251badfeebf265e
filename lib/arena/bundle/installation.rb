# frozen_string_literal: true

require "bundler"

module Arena
  module Bundle
    # Where a server comes from: a gem in the app's bundle, or a system program
    # (Debian's passenger, uwsgi, jruby). `found` false carries the reason.
    Installation = Struct.new(:found, :version, :source, :path, :why, keyword_init: true) do
      def self.missing(why) = new(found: false, why: why).freeze

      def to_h = {found: found, version: version, source: source, path: path, why: why}.compact

      # A gem counts as installed when the app's Gemfile.lock names it and its
      # files are on disk, whatever bundle Arena itself runs in.
      # With an overlay (app.gemfile is Arena's, beside the app's) the source
      # says which bundle brought the gem: the app's, or Arena's overlay.
      def self.gem(name, app)
        return missing("#{app.app_lockfile} missing: run bundle install for the app") unless File.file?(app.app_lockfile)
        return missing("#{app.lockfile} missing") unless File.file?(app.lockfile)
        spec = lock_specs(app.lockfile).find { |s| s.name == name }
        return missing(not_bundled(name, app)) unless spec
        dir = gem_dir(name, spec.version, app.respond_to?(:gem_dirs) ? app.gem_dirs : [])
        return missing("gem #{name} #{spec.version} is locked but not installed (bundle install)") unless dir
        added = app.overlay&.entries&.any? { |e| e.state == :added && e.gems.include?(name) }
        source = (lock_versions(app.app_lockfile).key?(name) && !added) ? "bundle" : "overlay"
        new(found: true, version: spec.version.to_s, source: source, path: dir).freeze
      end

      def self.not_bundled(name, app)
        why = app.overlay&.entries&.find { |e| e.gems.include?(name) && !e.runnable? }&.describe
        why ? "gem #{name}: #{why}" : "gem #{name} is not in #{File.basename(app.app_gemfile)}"
      end

      # extra: more gem directories to look in (an app's vendor/bundle/ruby/3.1.0).
      def self.gem_dir(name, version, extra = [])
        paths = extra + Gem.path
        paths.map { |p| File.join(p, "gems", "#{name}-#{version}") }.find { |d| File.directory?(d) } ||
          paths.flat_map { |p| Dir.glob(File.join(p, "gems", "#{name}-#{version}-*")) }.first
      end

      def self.installed_spec?(lockfile, name)
        spec = lock_specs(lockfile).find { |s| s.name == name }
        (spec && gem_dir(name, spec.version)) ? true : false
      end

      def self.lock_versions(lockfile) = lock_specs(lockfile).to_h { |s| [s.name, s.version.to_s] }

      def self.program(path, version_argv: nil, version_pattern: /(\d+\.\d+(?:\.\d+)*)/)
        return missing("#{path} not installed") unless File.executable?(path)
        version = nil
        if version_argv
          out = IO.popen([path, *version_argv], err: [:child, :out], &:read).to_s
          version = out[version_pattern, 1]
        end
        new(found: true, version: version, source: "system", path: path).freeze
      rescue SystemCallError => e
        missing("#{path}: #{e.message}")
      end

      # Cached by path and modification time: an overlay's lock is rewritten
      # while it is built.
      def self.lock_specs(lockfile)
        @lock_specs ||= {}
        key = [lockfile, File.mtime(lockfile).to_f, File.size(lockfile)]
        @lock_specs[key] ||= Bundler::LockfileParser.new(File.read(lockfile)).specs
      end
    end
  end
end
