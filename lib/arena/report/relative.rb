# frozen_string_literal: true

require_relative "../results/store"
require_relative "../stats/stats"
require_relative "../support/format"
require_relative "rows"

module Arena
  module Report
    # Each row's goodput against its group's reference: the fastest row of
    # the same workload × scenario × variant (or the `baseline` config where
    # it ran there), as a ratio with its interval, "0.55× iodine ±3%".
    #
    # A ratio of two configs measured in the same rounds is paired
    # (Stats.by_rounds on their per-round figures): the machine's drift,
    # which widens each absolute figure's ±, cancels in it, so the ratio's ±
    # is usually far narrower than either figure's. `n` is the rounds it
    # rests on. Pure: rows in, values out.
    module Relative
      # ratio: this row's goodput over the reference's (1.0 for the reference
      # itself); half_pct: half the ratio's 95% interval against the ratio (nil
      # under 3 rounds); difference: the test behind it (nil for the reference).
      Value = Struct.new(:ratio, :half_pct, :reference, :reference_label, :n, :difference, keyword_init: true) do
        def reference? = difference.nil?

        # "reference", "0.55× iodine ±3% n=6", "1.02× puma ±1.2% ≈ n=6" (equivalent
        # within ±3%); n: the rounds the ratio rests on.
        def to_s
          return "reference" if reference?
          text = "#{format("%.2f", ratio)}× #{reference_label}"
          text += " ±#{Support::Format.pct(half_pct)}" if half_pct
          text += " ≈" if difference.equivalent?
          "#{text} n=#{n}"
        end

        def to_record
          {"ratio" => ratio.round(4), "half_width_pct" => half_pct&.round(2), "reference" => reference, "n" => n,
           "method" => difference&.method, "equivalent" => difference&.equivalent?, "p_value" => difference&.p_value}.compact
        end
      end

      extend self

      def key(row) = [row.server, row.workload, row.scenario, row.variant]

      # {row key => Value}; a row alone in its group has none.
      def of(rows, baseline: nil)
        rows.group_by { |r| [r.workload, r.scenario, r.variant] }.each_with_object({}) do |(_, group), all|
          serving = group.select { |r| r.rps.positive? }
          next if serving.size < 2
          ref = serving.find { |r| r.server == baseline } || serving.max_by(&:rps)
          label = short_label(ref, serving)
          serving.each { |row| all[key(row)] = value(row, ref, label) }
        end
      end

      def value(row, ref, label)
        return Value.new(ratio: 1.0, reference: ref.server, reference_label: label, n: ref.runs).freeze if row.equal?(ref)
        diff = Stats.by_rounds(ref.rps_runs, row.rps_runs, rounds_a: ref.round_runs, rounds_b: row.round_runs,
          names: [ref.server, row.server])
        ratio = diff.estimate_pct ? 1 + diff.estimate_pct / 100.0 : row.rps / ref.rps
        half = diff.low_pct && ((diff.high_pct - diff.low_pct) / 200.0 / ratio * 100.0)
        Value.new(ratio: ratio, half_pct: half, reference: ref.server, reference_label: label, n: diff.n, difference: diff).freeze
      end

      # The server's name alone ("puma") where no other row of the group
      # shares it; its whole label otherwise.
      def short_label(ref, group)
        name = ref.server.to_s.split(":", 2).first
        (group.count { |r| r.server.to_s.split(":", 2).first == name } > 1) ? ref.server : name
      end

      # For results.json: one record per row that has a ratio.
      def records(rows, baseline: nil)
        values = of(rows, baseline: baseline)
        rows.filter_map do |r|
          v = values[key(r)] or next
          {"server" => r.server, "workload" => r.workload, "scenario" => r.scenario, "variant" => r.variant}.compact.merge(v.to_record)
        end
      end
    end

    # Each row against its group's reference (the fastest), paired on the
    # rounds, written into results.json as a run finishes.
    Results::Store.summarize("relative") do |view, document|
      Relative.records(Rows.from(view), baseline: document.dig("plan", "baseline"))
    end
  end
end
