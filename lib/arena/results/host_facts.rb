# frozen_string_literal: true

require "etc"

module Arena
  module Results
    # What a reader needs to judge a result: the machine, the Ruby, the engine,
    # and how cores were pinned.
    module HostFacts
      module_function

      def capture(machine:, engine_version:)
        {
          "cpu_model" => cpu_model, "cores" => machine.cores, "kernel" => Etc.uname[:release],
          "os" => os_name, "ruby" => RUBY_DESCRIPTION, "yjit" => yjit,
          "engine_version" => engine_version, "pinning" => machine.to_h.transform_keys(&:to_s),
          "memory_kb" => File.read("/proc/meminfo")[/MemTotal:\s+(\d+)/, 1].to_i
        }
      end

      def cpu_model
        File.read("/proc/cpuinfo")[/^model name\s*:\s*(.+)$/, 1] || "unknown"
      rescue Errno::ENOENT
        "unknown"
      end

      def os_name
        File.read("/etc/os-release")[/^PRETTY_NAME="?([^"\n]+)/, 1]
      rescue Errno::ENOENT
        "unknown"
      end

      # Servers run on the same ruby as Arena; YJIT is on for them only if the
      # environment turns it on.
      def yjit
        available = defined?(RubyVM::YJIT) ? true : false
        {"available" => available, "enabled_for_servers" => available && ENV["RUBY_YJIT_ENABLE"] == "1"}
      end
    end
  end
end
