# frozen_string_literal: true

require_relative "../system/procfs"
require_relative "base"

module Arena
  module Servers
    # Pitchfork: Unicorn's model (a monitor, N workers, one request each, no
    # keep-alive) plus reforking: a warmed worker becomes the new "mold" and
    # the other workers are replaced by its forks, so pages warmed by requests
    # are shared again. The monitor is a child subreaper, so the mold and every
    # worker are its direct children.
    class Pitchfork < Base
      server "pitchfork", "prefork with reforking, one request per worker, no keep-alive"
      tunable "workers", min: 1, max: ->(m) { 4 * m.server_cores }
      tune_start("cores x 1.5 + 1 (the rule of thumb seed 000 quotes, as for Unicorn)") { |cores| {"workers" => (cores * 1.5 + 1).round} }
      slots("worker processes") { |s| s["workers"].to_i }

      def self.config_file(s, rackup:) = ConfigFile.prefork("pitchfork", s, rackup, preload: nil)

      def self.worker_setting = "workers"

      # refork_after: "off" (Pitchfork's own default) or request counts per
      # generation separated by "/", e.g. "50/100/1000" (commas separate
      # settings on the command line).
      def self.settings
        {"workers" => ->(m) { m.default_workers }, "timeout" => 60, "refork_after" => "off"}
      end

      def self.allowed
        {"workers" => 1.., "timeout" => 1..,
         "refork_after" => Pattern.new(%r{\A(off|[1-9]\d*(/[1-9]\d*)*)\z}, "off or request counts like 50/100/1000")}
      end

      def command(app:, bind:, dir:)
        config = File.join(dir, "pitchfork.conf.rb")
        File.write(config, config_text(bind))
        bundle_exec("pitchfork", "-E", "production", "-c", config, app.rackup)
      end

      # No refork_after line means no automatic reforking: Pitchfork 0.18
      # takes only an array there (`false` alone breaks its workers).
      def config_text(bind)
        text = <<~RUBY
          worker_processes #{workers}
          listen #{bind.address.inspect}
          timeout #{settings["timeout"]}
        RUBY
        refork_after ? text + "refork_after #{refork_after.inspect}\n" : text
      end

      # The thresholds per generation, or nil when reforking is left to signals.
      def refork_after
        value = settings["refork_after"]
        (value == "off") ? nil : value.split("/").map { |n| Integer(n) }
      end

      # USR2 promotes a worker to a new mold and rolls the others over to its
      # forks: the same code, re-shared memory, no lost connections.
      def restart_mechanisms = [:refork]

      def restart(group, mechanism)
        (mechanism == :refork) ? group.signal("USR2") : :unsupported
      end

      # The mold is a child of the monitor too; killing it is not killing a
      # worker that serves requests.
      def worker_pids(group)
        super.reject { |pid| System::Procfs.cmdline(pid).include?("mold") }
      end
    end
  end
end
