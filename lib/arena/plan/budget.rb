# frozen_string_literal: true

require_relative "../load/settings"
require_relative "plan"

module Arena
  class Plan
    # A run fitted to its time before it starts (issue 35). --max-time bounds
    # the whole run; without it, a run with a long scenario gets a default
    # budget (the default arena's 3 minutes, or one round of each long unit at
    # its own bound when that is more) and a run of short scenarios only is
    # left as it is. Pure: Plan::Estimate's seconds in, a Fit out.
    #
    # What gives way, in order: the long scenarios' rounds (a sweep's levels,
    # a soak's timeline already repeat the measurement, and their verdicts
    # take their range from within: the knee between a held and a missed
    # level, the soak's fit over its samples), down to one; then each long
    # unit's own bound (--max-time of a sweep, --soak-time), one cap for all,
    # never under MIN_UNIT_S; then the short scenarios' rounds, down to one.
    # What was cut is said in words (the estimate line and results.json).
    module Budget
      # The default arena's goal: a run without --max-time takes about 3 minutes.
      DEFAULT_S = 180.0
      # A long unit's own bound (its load's unit_bound_s) when --max-time is
      # the whole run's (the sweeps' old default).
      UNIT_BOUND_S = 300.0
      # A long unit is not squeezed under this: a sweep must have room for a
      # closed maximum and a few levels.
      MIN_UNIT_S = 20.0
      # Kept back from a budget that has to be cut into: the larger of these.
      RESERVE = 0.05
      RESERVE_S = 3.0

      # budget_s: the run's bound (nil: none); given: from --max-time;
      # rounds: the plan's; long_rounds: what the long scenarios run;
      # short_rounds: what the others run; overrides: {scenario => {load
      # setting => value}} for the long units' bounds; unit_s: {unit key =>
      # seconds}; seconds: the estimate; start_s: boots, baselines and warm-ups.
      Fit = Struct.new(:budget_s, :given, :rounds, :long_rounds, :short_rounds, :overrides, :unit_s, :units,
        :start_s, :seconds, :cuts, keyword_init: true)

      class Fit
        # How many rounds a scenario runs (long ones may run fewer).
        def rounds_of(long) = long ? long_rounds : short_rounds

        def to_h
          {"budget_s" => budget_s&.round, "given" => given, "rounds" => rounds, "long_rounds" => long_rounds,
           "short_rounds" => short_rounds, "estimate_s" => seconds.round, "start_s" => start_s.round(1),
           "bounds" => overrides.transform_values { |o| o.transform_keys(&:to_s) }, "cuts" => cuts}
        end
      end

      # extend self, not module_function: mutant mutates the methods the module then calls
      extend self

      # plan: an unfitted Plan; given_s: --max-time when it was given (the
      # whole run's bound), else nil. scenarios: what the plan's scenario names
      # resolve to (Scenarios, passed from above). estimate: plan -> Plan::Estimate::Whole.
      def call(plan, given_s:, scenarios:, estimate: ->(p) { Plan::Estimate.call(p, scenarios: scenarios) })
        rounds = plan.rounds
        natural = natural_overrides(plan, given_s, scenarios)
        whole = estimate.call(plan.with_budget(stub(natural)))
        long = whole.units.select(&:long)
        budget = given_s || (long.empty? ? nil : [DEFAULT_S, total(whole, rounds, 1)].max)
        return fit(plan, whole, budget, given_s, rounds, rounds, natural, []) if budget.nil? || total(whole, rounds, rounds) <= budget
        # Room kept for the estimate's own error under --max-time (a busy
        # machine settles slower); a default budget is the estimate itself.
        target = given_s ? budget - [RESERVE_S, RESERVE * budget].max : budget
        cuts = []
        short_s = whole.units.reject(&:long).sum(&:seconds)
        long_s = long.sum(&:seconds)
        k = long.empty? ? rounds : ((target - whole.start_s - rounds * short_s) / long_s).floor.clamp(1, rounds)
        overrides = natural
        if total(whole, rounds, k) > target && long.any?
          overrides, whole = squeeze(plan, whole, natural, target - whole.start_s - rounds * short_s, estimate)
        end
        r = rounds
        short_s = whole.units.reject(&:long).sum(&:seconds)
        if total(whole, r, k) > target && short_s.positive?
          r = ((target - whole.start_s - k * whole.units.select(&:long).sum(&:seconds)) / short_s).floor.clamp(1, rounds)
        end
        cuts << "#{names(long)}: #{k} of #{rounds} rounds (each repeats its measurement within: levels, a timeline)" if k < rounds
        cuts.concat(bound_cuts(natural, overrides))
        cuts << "#{names(whole.units.reject(&:long))}: #{r} of #{rounds} rounds#{" (under 3: no interval)" if r < 3}" if r < rounds
        over = total(whole, r, k)
        cuts << "does not fit #{budget.round} s: about #{over.round} s at the least" if over > budget
        fit(plan, whole, budget, given_s, r, k, overrides, cuts)
      end

      # What is said before anything starts, in lines of at most WIDTH
      # columns: what the run does and about how long; the start and each
      # scenario's part of it; against which budget, and what was cut to fit it.
      #   estimate: about 2 min 5 s for 4 server configs x 1 workload x steady, 3 rounds
      #     start 31 s (boots, baselines, warm-ups, stops); steady 7.8 s each, 4 x 3 rounds
      def line(plan) = lines(plan).join("\n")

      WIDTH = 100

      def lines(plan)
        fit = plan.budget
        per = fit.units.group_by(&:scenario).map do |name, units|
          "#{name} #{seconds(units.sum(&:seconds) / units.size)} each, #{units.size} x #{count(fit.rounds_of(units.first.long), "round")}"
        end
        budget = if fit.budget_s.nil? then nil
        elsif fit.given then "--max-time #{fit.budget_s.round} s (the whole run)"
        else "budget #{fit.budget_s.round} s (the default for a long scenario; --max-time to change)"
        end
        tail = [budget, ("cut: #{fit.cuts.join("; ")}" if fit.cuts.any?)].compact.join("; ")
        wrap("estimate: about #{duration(fit.seconds)} for #{count(plan.servers.size, "server config")} x " \
          "#{count(plan.workloads.size, "workload")} x #{plan.scenarios.join("+")}, #{count(plan.rounds, "round")}") +
          wrap("  start #{seconds(fit.start_s)} (boots, baselines, warm-ups, stops); #{per.join("; ")}") +
          (tail.empty? ? [] : wrap("  #{tail}"))
      end

      def seconds(s) = (s < 10) ? "#{s.round(1)} s" : "#{s.round} s"

      # "83 s", "2 min 5 s", "1 h 2 min".
      def duration(s)
        return seconds(s) if s < 100
        m = (s / 60.0).round
        return "#{m / 60} h #{m % 60} min" if m >= 100
        "#{s.round / 60} min #{s.round % 60} s"
      end

      def count(n, word) = "#{n} #{word}#{"s" unless n == 1}"

      # A line cut at spaces into lines of at most WIDTH, each after the first indented by two.
      def wrap(text)
        text.split(" ").each_with_object([""]) do |word, lines|
          candidate = lines.last.empty? ? "#{text[/\A */]}#{word}" : "#{lines.last} #{word}"
          if candidate.size > WIDTH && !lines.last.strip.empty?
            lines << "  #{"  " if text.start_with?("  ")}#{word}"
          else
            lines[-1] = candidate
          end
        end
      end

      # At run time, before a unit starts with `left_s` of --max-time left:
      # :go when its estimate fits; a long unit with a bound that fits once
      # the bound is lowered to the time left gets {setting => value}; else
      # nil: the unit is skipped (never cut mid-measurement).
      def now(fit, key:, scenario:, left_s:)
        need = fit.unit_s.fetch(key, 0.0)
        return :go if need <= left_s
        setting, value = fit.overrides[scenario]&.first
        return nil unless setting
        # What the unit takes besides its bound (a closed maximum, settling).
        rest = need - [value, need].min
        lowered = (left_s - rest).floor.to_f
        (lowered >= MIN_UNIT_S) ? {setting => lowered} : nil
      end

      def total(whole, short_rounds, long_rounds)
        whole.start_s + whole.units.sum { |u| u.seconds * (u.long ? long_rounds : short_rounds) }
      end

      def names(units) = units.map(&:scenario).uniq.join(", ")

      # Each bounded long scenario at its own bound, keyed by the setting the
      # user gives it with: a sweep's unit_bound_s (--max-time when that is
      # not the whole run's, else UNIT_BOUND_S), --soak-time.
      def natural_overrides(plan, given_s, scenarios)
        plan.scenarios.each_with_object({}) do |name, all|
          setting = scenarios.fetch(name).bound
          next unless setting
          value = (given_s && setting == :max_time) ? UNIT_BOUND_S : plan.load[setting]
          all[name] = {setting => value.to_f}.freeze
        end.freeze
      end

      # One cap on every bounded long unit so that one round of the long units
      # fits `room`: each scenario's setting lowered (by bisection) until its
      # slowest unit takes at most the cap. Returns [overrides, whole].
      def squeeze(plan, whole, natural, room, estimate)
        fixed = whole.units.select { |u| u.long && !natural.key?(u.scenario) }.sum(&:seconds)
        bounded = whole.units.select { |u| u.long && natural.key?(u.scenario) }
        cap = water_level(bounded.map(&:seconds), room - fixed).clamp(MIN_UNIT_S, nil)
        overrides = natural.to_h do |name, setting|
          key, value = setting.first
          slowest = ->(v) { estimate.call(plan.with_budget(stub(natural.merge(name => {key => v})))).units.select { |u| u.scenario == name }.map(&:seconds).max.to_f }
          [name, {key => bisect(value, cap, slowest)}.freeze]
        end.freeze
        [overrides, estimate.call(plan.with_budget(stub(overrides)))]
      end

      # The cap c with sum(min(s, c)) = room (every unit under it untouched).
      def water_level(seconds, room)
        return 0.0 if seconds.empty? || room <= 0
        sorted = seconds.sort
        sorted.each_with_index do |s, i|
          rest = sorted.size - i
          return room / rest if s * rest >= room
          room -= s
        end
        sorted.last
      end

      # The largest value in [1, value] (whole seconds) whose unit takes at most cap.
      def bisect(value, cap, seconds_at)
        return value if seconds_at.call(value) <= cap
        low = 1.0
        high = value
        while high - low > 1
          mid = ((low + high) / 2).floor.to_f
          (seconds_at.call(mid) <= cap) ? low = mid : high = mid
        end
        low
      end

      def bound_cuts(natural, overrides)
        overrides.filter_map do |name, setting|
          key, value = setting.first
          was = natural.dig(name, key)
          next if value >= was
          flag = Load.setting(key).switch
          "#{name}: #{flag} #{value.round} s a unit (from #{was.round})"
        end
      end

      # A Fit carrying only bounds, for pricing the plan under them.
      def stub(overrides) = Fit.new(overrides: overrides, long_rounds: 1, short_rounds: 1).freeze

      def fit(plan, whole, budget, given_s, short_rounds, long_rounds, overrides, cuts)
        cuts += whole.units.filter_map(&:note).uniq
        Fit.new(budget_s: budget, given: !given_s.nil?, rounds: plan.rounds, long_rounds: long_rounds, short_rounds: short_rounds,
          overrides: overrides, unit_s: whole.units.to_h { |u| [u.key, u.seconds] }.freeze, units: whole.units,
          start_s: whole.start_s, seconds: total(whole, short_rounds, long_rounds), cuts: cuts.freeze).freeze
      end
    end
  end
end
