# frozen_string_literal: true

require_relative "../core"

module Arena
  module Tune
    # --memory SIZE: "512MiB", "2GiB", "1.5G", or bytes. Default: 75% of the
    # memory the kernel says is available now (MemAvailable).
    module Budget
      UNITS = {"" => 1, "b" => 1, "k" => 1024, "kb" => 1000, "kib" => 1024, "m" => 1024**2, "mb" => 1000**2, "mib" => 1024**2,
               "g" => 1024**3, "gb" => 1000**3, "gib" => 1024**3}.freeze

      module_function

      # Bytes, or a UsageError in one line.
      def parse(text)
        m = /\A\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*\z/i.match(text.to_s)
        unit = m && UNITS[m[2].downcase]
        raise UsageError, "--memory takes a size like 512MiB, 2GiB or a number of bytes, not #{text.inspect}" unless unit
        bytes = (m[1].to_f * unit).round
        raise UsageError, "--memory must be at least 1MiB" if bytes < 1024**2
        bytes
      end

      def default_bytes(meminfo: "/proc/meminfo")
        kb = File.read(meminfo)[/^MemAvailable:\s+(\d+)/, 1].to_i
        raise Error, "cannot read MemAvailable from #{meminfo}: give --memory" if kb.zero?
        (kb * 1024 * 0.75).round
      rescue SystemCallError
        raise Error, "cannot read #{meminfo}: give --memory"
      end

      def mib(bytes) = (bytes / 1024.0**2).round(1)
    end
  end
end
