# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "tmpdir"

module Arena
  # A config file Arena writes reproduces what it measured (issue 34: the
  # uwsgi.ini dropped http_buffer_size, mode and socket_timeout, and the
  # deployed uWSGI got back the 40 ms stall Arena had fixed in its own runs;
  # Itsi's file dropped fibers, Agoo's poll_timeout).
  #
  # For every adapter and every setting: a value of the setting that changes
  # what Arena runs (its argv, its environment, the files it writes for the
  # server) must change the config file too. Each setting is tried from the
  # defaults and from each choice of the settings that are choices (uWSGI's
  # socket_timeout counts only in its socket modes), with a cluster of 2
  # where the server has a worker count (Puma's preload counts only then).
  class ConfigFileSettingsTest < Minitest::Test
    MACHINE = Plan::Machine.new(cores: 2)
    APP = Bundle::AppSource.new(rackup: "/srv/app/config.ru", gemfile: "/srv/app/Gemfile", app_gemfile: "/srv/app/Gemfile", dir: "/srv/app",
      builtin: false, env: {})
    # Texts a Pattern setting may take, tried in turn (the rule keeps those it allows).
    TEXTS = %w[0.5 0.01 1 50/100 off].freeze

    def setup = @dir = Dir.mktmpdir("config-file-settings")

    def teardown = FileUtils.rm_rf(@dir)

    def test_every_setting_that_changes_what_runs_changes_the_config_file
      checked = 0
      dropped = []
      Servers.all.each do |klass|
        klass.settings.each_key do |name|
          effective = false
          bases(klass).each do |base|
            alternatives(klass, name, base[name]).each do |value|
              changed = base.merge(name => value)
              next if run_of(klass, base) == run_of(klass, changed)
              effective = true
              checked += 1
              if klass.config_file(base, rackup: "config.ru").nil?
                dropped << "#{klass.key}: #{name} changes what runs, and it writes no config file"
              elsif file_of(klass, base) == file_of(klass, changed)
                dropped << "#{klass.key}: #{name}=#{value} (from #{base[name]}, with #{base}) changes what Arena runs but not its config file"
              end
            end
          end
          assert effective, "#{klass.key}: #{name} changes nothing Arena runs, from any base tried"
        end
      end
      assert dropped.empty?, dropped.uniq.join("\n")
      assert_operator checked, :>=, 25
    end

    private

    def bases(klass)
      defaults = klass.new(machine: MACHINE).settings
      worker = klass.worker_setting
      defaults = defaults.merge(worker => 2) if worker
      choices = klass.allowed.select { |_, rule| rule.is_a?(Array) }
      [defaults, *choices.flat_map { |name, values| values.map { |v| defaults.merge(name => v) } }].uniq
    end

    def alternatives(klass, name, value)
      rule = klass.allowed[name]
      candidates = case value
      when true, false then [!value]
      when Integer then [value + 1, value - 1]
      else rule.is_a?(Array) ? rule : TEXTS
      end
      candidates.reject { |v| v == value || (v.is_a?(Integer) && v.negative?) }.select { |v| rule.nil? || rule.include?(v) }.first(3)
    end

    # What Arena runs for these settings: argv, environment (but its own
    # label) and the files the adapter writes into the server's dir; a
    # setting refused when the plan is made (Itsi's fibers without its
    # scheduler gem) runs nothing, which differs from what the base runs.
    def run_of(klass, settings)
      FileUtils.rm_rf(Dir.glob(File.join(@dir, "*")))
      adapter = begin
        klass.new(settings: settings, machine: MACHINE)
      rescue UsageError => e
        return [:refused, e.message]
      end
      argv = adapter.command(app: APP, bind: System::Bind.tcp(host: "127.0.0.1", port: 9000), dir: @dir)
      files = Dir.glob(File.join(@dir, "**", "*")).select { |f| File.file?(f) }.sort.to_h { |f| [f, File.read(f)] }
      [argv, adapter.env(app: APP).except("ARENA_SERVER"), files]
    end

    def file_of(klass, settings)
      file = klass.config_file(settings, rackup: "config.ru")
      [file.text, file.command, file.files]
    end
  end
end
