# frozen_string_literal: true

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
        new(dimensions: dims, start: start)
      end

      def self.runtime_dimensions(klass, runtime)
        return [] unless klass.ruby_engine == "mri"
        names = []
        names << "yjit" if defined?(RubyVM::YJIT) && !runtime.yjit
        names << "jemalloc" if Runtime.jemalloc_path && runtime.malloc.nil?
        names.map { |name| Dimension.new(name: name, min: 0, max: 1).freeze }
      end

      # The --runtime tokens a point's runtime dimensions stand for.
      def self.runtime_tokens(settings) = RUNTIME.filter_map { |name, token| token if settings[name] == 1 }

      def self.adapter_settings(settings) = settings.except(*RUNTIME.keys)

      def initialize(dimensions:, start: {})
        @dimensions = dimensions.freeze
        @start = start
      end

      def empty? = @dimensions.empty?

      # The heuristic start, each value inside its bounds; a dimension the
      # heuristic does not name starts at its lowest value.
      def start = clamp(@start)

      def clamp(settings) = @dimensions.to_h { |d| [d.name, d.clamp(settings.fetch(d.name, d.min))] }

      # Every point (the grid a brute-force search would measure).
      def size = @dimensions.map { |d| d.max - d.min + 1 }.reduce(1, :*)
    end
  end
end
