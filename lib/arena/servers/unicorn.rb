# frozen_string_literal: true

require_relative "../support/clock"
require_relative "../system/procfs"
require_relative "base"

module Arena
  module Servers
    # Unicorn: a master and N forked workers, one request at a time each. It
    # closes every connection after the response; that is its design, not an
    # error, and the engine counts it as a normal close.
    class Unicorn < Base
      server "unicorn", "prefork, one request per worker, no keep-alive"
      tunable "workers", min: 1, max: ->(m) { 4 * m.server_cores }
      tune_start("cores x 1.5 + 1 (the rule of thumb seed 000 quotes)") { |cores| {"workers" => (cores * 1.5 + 1).round} }
      slots("worker processes") { |s| s["workers"].to_i }

      def self.config_file(s, rackup:) = ConfigFile.prefork("unicorn", s, rackup, preload: s["preload"])

      def self.worker_setting = "workers"

      def self.settings
        {"workers" => ->(m) { m.default_workers }, "preload" => true, "timeout" => 60}
      end

      def self.allowed = {"workers" => 1.., "timeout" => 1..}

      def command(app:, bind:, dir:)
        config = File.join(dir, "unicorn.conf.rb")
        File.write(config, <<~RUBY)
          worker_processes #{workers}
          listen #{bind.address.inspect}
          preload_app #{settings["preload"]}
          timeout #{settings["timeout"]}
          pid #{File.join(dir, "unicorn.pid").inspect}
        RUBY
        bundle_exec("unicorn", "-E", "production", "-c", config, app.rackup)
      end

      # HUP reloads the config and replaces workers; USR2 then QUIT of the old
      # master is the zero-downtime binary upgrade.
      def restart_mechanisms = [:hup, :usr2_quit]

      def restart(group, mechanism)
        case mechanism
        when :hup then group.signal("HUP")
        when :usr2_quit then UpgradeByReexec.new(group, pid_file: File.join(File.dirname(group.log_path), "unicorn.pid")).call
        else :unsupported
        end
      end
    end

    # USR2 makes the master exec a new master beside itself; once the new one
    # has its workers, QUIT ends the old one. Unicorn's; it needs the pid file
    # Unicorn's config writes.
    class UpgradeByReexec
      def initialize(group, pid_file:, timeout: 30)
        @group = group
        @pid_file = pid_file
        @timeout = timeout
      end

      def call
        old = @group.pid
        @group.signal("USR2")
        deadline = Support::Clock.now + @timeout
        new_master = nil
        while Support::Clock.now < deadline
          new_master = read_pid
          break if new_master && new_master != old && children_of(new_master).any?
          sleep 0.05
        end
        return :failed unless new_master && new_master != old
        @group.signal("QUIT")
        true
      end

      private

      def read_pid
        Integer(File.read(@pid_file).strip, exception: false)
      rescue Errno::ENOENT
        nil
      end

      def children_of(pid) = System::Procfs.all_stats.select { |s| s.ppid == pid }
    end
  end
end
