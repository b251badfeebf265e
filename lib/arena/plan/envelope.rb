# frozen_string_literal: true

require_relative "../core"
require_relative "plan"

module Arena
  class Plan
    # The deployment envelope a server config runs in: a CPU quota and a memory
    # limit, as a container or a dyno sets them. It wraps the server's whole
    # process tree in a cgroup of its own (lib/arena/launch/cgroups.rb),
    # never the load engine nor a front proxy. Like the runtime it is part of
    # the config's label, after an "@", so a label read back from a results
    # file is still a valid `--servers` spec:
    #   unicorn:workers=4,preload=true,timeout=60@cpus=1,memory=512MiB
    #
    #   --envelope cpus=0.5          a CFS quota of half a core (not pinning)
    #   --envelope memory=512MiB     the cgroup's memory limit (KiB, MiB, GiB, or bytes)
    class Envelope
      KNOWN = "cpus=N (a fraction of cores, e.g. 0.5), memory=SIZE (e.g. 512MiB)"
      # Sizes as Tune::Budget reads them, in the binary units a container uses.
      UNITS = {"" => 1, "b" => 1, "k" => 1024, "kib" => 1024, "kb" => 1000, "m" => 1024**2, "mib" => 1024**2,
               "mb" => 1000**2, "g" => 1024**3, "gib" => 1024**3, "gb" => 1000**3}.freeze
      MIN_MEMORY = 16 * 1024**2 # a Ruby server does not boot in less
      MIN_CPUS = 0.01 # the kernel's smallest CFS quota is 1 ms per 100 ms period

      attr_reader :cpus, :memory_bytes

      # "cpus=1,memory=512MiB" (or a list of such tokens) -> Envelope; a
      # UsageError in one line for anything else.
      def self.parse(items)
        tokens = Array(items).flat_map { |item| item.to_s.split(/[,\s]+/) }.reject(&:empty?)
        tokens.reduce(NONE) { |envelope, token| envelope.merge(token(token)) }
      end

      def self.token(text)
        name, value = text.split("=", 2)
        case name
        when "cpus"
          cpus = Float(value.to_s, exception: false)
          raise UsageError, "--envelope cpus must be a number of cores from #{MIN_CPUS} (e.g. 0.5 or 2), not #{value.inspect}" unless cpus && cpus >= MIN_CPUS && cpus <= 1024
          new(cpus: cpus)
        when "memory"
          new(memory_bytes: size(value))
        else
          raise UsageError, "unknown envelope setting #{text.inspect} (known: #{KNOWN})"
        end
      end

      def self.size(text)
        m = /\A(\d+(?:\.\d+)?)([a-z]*)\z/i.match(text.to_s)
        unit = m && UNITS[m[2].downcase]
        raise UsageError, "--envelope memory takes a size like 512MiB or 1GiB, not #{text.inspect}" unless unit
        bytes = (m[1].to_f * unit).round
        raise UsageError, "--envelope memory must be at least 16MiB (a Ruby server does not boot in less)" if bytes < MIN_MEMORY
        bytes
      end

      def initialize(cpus: nil, memory_bytes: nil)
        @cpus = cpus
        @memory_bytes = memory_bytes
        freeze
      end

      # Later tokens win over earlier ones of the same name.
      def merge(other) = self.class.new(cpus: other.cpus || cpus, memory_bytes: other.memory_bytes || memory_bytes)

      def empty? = cpus.nil? && memory_bytes.nil?

      def bounded? = !empty?

      def tokens = [("cpus=#{number(cpus)}" if cpus), ("memory=#{memory_text}" if memory_bytes)].compact

      # "@cpus=1,memory=512MiB", appended to the server's label; "" when none.
      def suffix = empty? ? "" : "@#{tokens.join(",")}"

      def memory_text
        return nil unless memory_bytes
        %w[GiB MiB KiB].each_with_index do |unit, i|
          scale = 1024**(3 - i)
          return "#{memory_bytes / scale}#{unit}" if (memory_bytes % scale).zero?
        end
        memory_bytes.to_s
      end

      def memory_mib = memory_bytes && (memory_bytes / 1024.0**2).round(1)

      # CFS bandwidth: quota microseconds per period.
      PERIOD_US = 100_000

      def quota_us = cpus && (cpus * PERIOD_US).round

      # What a reader of this config should know before trusting a figure: a
      # quota above the cores the server may run on cannot bind.
      def notes(machine)
        return [] unless cpus && cpus > machine.server_cores
        ["envelope cpus=#{number(cpus)} is more than the #{machine.server_cores} core(s) the server runs on here " \
         "(#{machine.pinned? ? "the engine has the last core to itself" : "the machine's cores"}): the quota cannot bind"]
      end

      def to_h = {"cpus" => cpus, "memory_bytes" => memory_bytes, "label" => tokens.join(",")}.compact

      def to_s = empty? ? "none" : tokens.join(",")

      def ==(other) = other.is_a?(Plan::Envelope) && tokens == other.tokens

      alias_method :eql?, :==

      def hash = tokens.hash

      private

      def number(value) = (value == value.to_i) ? value.to_i.to_s : value.to_s

      NONE = new
    end
  end
end
