# frozen_string_literal: true

require_relative "../core"

module Arena
  module Load
    # A load profile (--profile, `profile:` in arena.yml): open-model stages in
    # order, written as people say them:
    #
    #   ramp 0..500/s 60s, hold 500/s 120s, spike 1500/s 10s, hold 500/s 60s
    #
    # `ramp A..B/s DUR` goes linearly from A to B requests/s; `hold R/s DUR`
    # and `spike R/s DUR` keep R (a spike is a hold whose end starts a
    # recovery measurement). DUR takes ms, s, m or h. The engine takes it as
    # `A:B:SEC,...` (--profile).
    module Profile
      Stage = Struct.new(:kind, :from_rps, :to_rps, :seconds, keyword_init: true) do
        def label = (kind == "ramp") ? "ramp #{num(from_rps)}..#{num(to_rps)}/s #{num(seconds)}s" : "#{kind} #{num(to_rps)}/s #{num(seconds)}s"

        def asked = (from_rps + to_rps) / 2.0 * seconds

        def num(x) = format("%g", x)
      end

      Profile = Struct.new(:spec, :stages, keyword_init: true) do
        def engine_spec = stages.map { |s| [s.from_rps, s.to_rps, s.seconds].map { |x| format("%g", x) }.join(":") }.join(",")

        def total_s = stages.sum(&:seconds)

        # Where each stage starts, in seconds from the start of the profile.
        def starts = stages.each_with_object([]) { |s, acc| acc << (acc.empty? ? 0.0 : acc.last + stages[acc.size - 1].seconds) }
      end

      RATE = /(\d+(?:\.\d+)?)/
      STAGE = %r{\A(?:(?<kind>ramp)\s+#{RATE}\s*\.\.\s*#{RATE}|(?<kind>hold|spike)\s+#{RATE})\s*/s\s+(?<dur>\d+(?:\.\d+)?)(?<unit>ms|s|m|h)\z}
      UNITS = {"ms" => 0.001, "s" => 1, "m" => 60, "h" => 3600}.freeze
      MAX_STAGES = 32
      EXAMPLE = "'ramp 0..500/s 60s, hold 500/s 120s, spike 1500/s 10s, hold 500/s 60s'"

      module_function

      def parse(spec)
        parts = spec.to_s.split(",", -1).map(&:strip)
        fail!(spec, "no stage") if parts.empty? || parts.any?(&:empty?)
        fail!(spec, "at most #{MAX_STAGES} stages") if parts.size > MAX_STAGES
        stages = parts.map { |part| stage(spec, part) }
        fail!(spec, "it asks for no request") if stages.sum(&:asked) < 1
        Profile.new(spec: spec.to_s, stages: stages.freeze).freeze
      end

      def stage(spec, part)
        m = part.match(STAGE) or fail!(spec, "#{part.inspect} is not a stage ('ramp A..B/s DUR', 'hold R/s DUR', 'spike R/s DUR')")
        rates = part.scan(RATE).flatten.map(&:to_f)
        from, to = (m[:kind] == "ramp") ? rates.first(2) : [rates.first, rates.first]
        seconds = m[:dur].to_f * UNITS.fetch(m[:unit])
        fail!(spec, "#{part.inspect}: a stage lasts more than 0 s") unless seconds.positive?
        fail!(spec, "#{part.inspect}: at most 1e8 requests/s") if [from, to].max > 1e8
        Stage.new(kind: m[:kind], from_rps: from, to_rps: to, seconds: seconds).freeze
      end

      # The engine's stages ("R0:R1:SEC,...") at 1/n of each rate: one loader's
      # share when n loader hosts run the profile together.
      def share(engine_spec, n)
        engine_spec.split(",").map do |stage|
          from, to, seconds = stage.split(":")
          [format("%.15g", from.to_f / n), format("%.15g", to.to_f / n), seconds].join(":")
        end.join(",")
      end

      # The engine's stages' total seconds.
      def engine_seconds(engine_spec) = engine_spec.split(",").sum { |stage| stage.split(":").last.to_f }

      # For the load-settings table: the spec checked, kept as written.
      def cast_setting(value)
        parse(value)
        value.to_s
      end

      def fail!(spec, why) = raise(UsageError, "--profile #{spec.to_s.inspect}: #{why}; e.g. #{EXAMPLE}")
    end
  end
end
