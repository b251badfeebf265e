# frozen_string_literal: true

require_relative "../load/settings"
require_relative "../plan/workloads"
require_relative "../presets/presets"
require_relative "base"

module Arena
  module Commands
    # `arena presets`: each published comparison Arena can re-run, its source,
    # and what it runs at its default scale.
    class Presets < Base
      def call
        OptionParser.new { |parser| parser.banner = "usage: arena presets" }.parse!(@argv)
        Arena::Presets.all.each { |preset| @out.puts describe(preset), "" }
        @out.puts "run one: arena run --preset NAME [--scale F]   (--scale 1 = the original size)"
        0
      end

      private

      def describe(preset)
        o = preset.options_at(preset.default_scale)
        workloads = preset.workloads.map { |w| w.is_a?(Plan::Workload) ? "#{w.name} (#{w.path})" : w }
        lines = [
          "#{preset.name}  (seed #{preset.seed})",
          "  published: #{preset.method}",
          "  found:     #{preset.finding}",
          "  servers:   #{preset.servers.join(" ")}",
          "  app:       #{preset.app || "built-in"}; workloads: #{workloads.join(", ")}",
          "  runs:      #{preset.scenarios.join(", ")}#{" behind #{o[:front]}" if o[:front]}; " \
            "at scale #{preset.default_scale} (default): #{counts(o)}",
          "             at scale 1: #{counts(preset.options_at(1))}"
        ]
        lines << "  needs:     #{preset.setup}" if preset.setup
        lines.join("\n")
      end

      # The settings a listing shows, in this order; each flag is the load table's
      # (Load::TABLE), the rounds the plan's own option.
      SHOWN = %i[connections levels reps requests duration warmup keep_alive rounds step max_connections max_time slo_ms timeout].freeze

      def flag(key) = (key == :rounds) ? "--rounds" : Load.setting(key).switch

      def counts(options)
        SHOWN.filter_map do |key|
          flag = flag(key)
          value = options[key] or next
          value = value.join(",") if value.is_a?(Array)
          value = value.to_i if value.is_a?(Float) && value == value.to_i
          "#{flag} #{value}"
        end.join(" ")
      end
    end
  end
end
