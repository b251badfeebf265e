# frozen_string_literal: true

require_relative "../plan/runtime"

module Arena
  module Tune
    # One searchable setting, its bounds resolved for this machine.
    Dimension = Struct.new(:name, :min, :max, keyword_init: true) do
      def clamp(value) = value.to_i.clamp(min, max)

      # Exploration doubles or halves; from 0 the next step up is 1.
      def up(value) = [value.zero? ? 1 : value * 2, max].min

      def down(value) = [value / 2, min].max

      def mid(a, b) = (a + b) / 2
    end

    # The settings space of one server: the tunables its adapter declares
    # (servers/tuning.rb `tunable`), each bounded by the machine, and where the
    # search starts: the heuristic its adapter declares (`tune_start`, with
    # its documented source).
    class Space
      # The runtime settings (lib/arena/plan/runtime.rb) as tunables of every MRI
      # server, with --tune-runtime: 0 off, 1 on, each the --runtime token it stands for.
      RUNTIME = {"yjit" => "yjit", "jemalloc" => "malloc=jemalloc"}.freeze

      attr_reader :dimensions

      # runtime: the server's own runtime; a setting it fixes is not searched.
      def self.for(klass, machine:, runtime: nil)
        dims = klass.tunables.map do |name, bounds|
          min, max = bounds.values_at(:min, :max).map { |b| b.respond_to?(:call) ? b.call(machine) : b }
          Dimension.new(name: name, min: min, max: [max, min].max).freeze
        end
        dims += runtime_dimensions(klass, runtime) if runtime
        start = klass.tune_start&.call(machine.server_cores) || {}
        new(dimensions: dims, start: start, bounded: !klass.slots&.count.nil?)
      end

      # An adapter's space on this machine, its runtime searched too when
      # tune_runtime (YJIT and jemalloc) is on.
      def self.searched(adapter, machine:, tune_runtime:) = self.for(adapter.class, machine: machine, runtime: (adapter.runtime if tune_runtime))

      def self.runtime_dimensions(klass, runtime)
        return [] unless klass.ruby_engine == "mri"
        names = []
        names << "yjit" if defined?(RubyVM::YJIT) && !runtime.yjit
        names << "jemalloc" if Plan::Runtime.jemalloc_path && runtime.malloc.nil?
        names.map { |name| Dimension.new(name: name, min: 0, max: 1).freeze }
      end

      # The --runtime tokens a point's runtime dimensions stand for.
      def self.runtime_tokens(settings) = RUNTIME.filter_map { |name, token| token if settings[name] == 1 }

      def self.adapter_settings(settings) = settings.except(*RUNTIME.keys)

      # bounded: whether a config's slots are a fixed ceiling (workers x
      # threads, processes); false for fibers and reactors (no_slots).
      def initialize(dimensions:, start: {}, bounded: true)
        @dimensions = dimensions.freeze
        @start = start
        @bounded = bounded
      end

      def empty? = @dimensions.empty?

      # The heuristic start, each value inside its bounds; a dimension the
      # heuristic does not name starts at its lowest value.
      def start = clamp(@start)

      def clamp(settings) = @dimensions.to_h { |d| [d.name, d.clamp(settings.fetch(d.name, d.min))] }

      # The point the model predicts for `slots` requests in service on
      # `cores` cores (Capacity.saturating_slots), the other settings as at
      # the start. A setting named "threads" is concurrency inside a
      # process; the first other one (workers, processes, pool, count,
      # servers) counts processes. With both, a process per core (a
      # process runs Ruby on one core at most: the GVL) and the slots shared
      # among them as threads; with processes alone, a process per slot, or
      # a process per core where a process has no slot ceiling (fibers, a
      # reactor: the waiting overlaps inside it).
      def predicted(slots:, cores:)
        threads = @dimensions.find { |d| d.name == "threads" }
        procs = @dimensions.find { |d| d.name != "threads" && !RUNTIME.key?(d.name) }
        values = if threads && procs then {procs.name => cores, threads.name => (slots / cores).round(1).ceil}
        elsif procs then {procs.name => @bounded ? slots.round(1).ceil : cores}
        elsif threads then {threads.name => slots.round(1).ceil}
        else {}
        end
        clamp(start.merge(values))
      end

      # Every point (the grid a brute-force search would measure).
      def size = @dimensions.map { |d| d.max - d.min + 1 }.reduce(1, :*)
    end
  end
end
