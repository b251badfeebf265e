# frozen_string_literal: true

require_relative "confirmation"
require_relative "estimate"
require_relative "scaling"
require_relative "space"
require_relative "triage"

module Arena
  module Tune
    # The whole tune's time and its shares. max_s is --max-time (else the
    # command's 10 minutes), the bound of the whole tune; a trial's own bound
    # is Trial's, never written into it. reserve_s is kept first for the
    # confirmation rounds (and the cores rounds when the budget holds them:
    # scaling_s); the head to head gets what it needs before that; the
    # looks and searches the rest. per_candidate_s: one candidate's time at
    # the app's pace; duration_s: a load's -d; cores_rounds_s: what the
    # cores rounds take, kept or not. started: when the tune opened (nil
    # until #start).
    # look_s: the least look (Estimate::LEAST_LEVELS), the least share a look gets.
    # cores_configs: the configs scaling_s is kept for (the answer's, and your
    # server's best beside it when there are other servers); nil: one.
    TimeBudget = Struct.new(:max_s, :per_candidate_s, :look_s, :reserve_s, :scaling_s, :cores_rounds_s, :duration_s, :started,
      :cores_configs, keyword_init: true)

    class TimeBudget
      # A first look takes more than its loads (verification, settling, the
      # warm-up to a steady state): LOOK_SLACK of its estimate.
      LOOK_SLACK = 1.5
      # The most of a short budget the rounds take from the looks to reach
      # the fewest rounds that compare.
      MOST_SHARE = 0.6

      # plan: the paced plan; pace: Plan::Pace's (nil when not measured);
      # tune_runtime: YJIT and jemalloc searched; given: --max-time was;
      # say and detail: where its lines go (detail: with --verbose).
      def self.planned(plan, pace:, tune_runtime:, given:, say:, detail:)
        Planner.new(plan: plan, pace: pace, tune_runtime: tune_runtime).call(given: given, say: say, detail: detail)
      end

      def start(now = Support::Clock.now) = self.class.new(**to_h, started: now).freeze

      def deadline = started + max_s

      # The head to head ends where the confirmation's reserve begins.
      def head_to_head_deadline = deadline - reserve_s

      # The confirmation ends where the cores rounds' time begins: their time
      # for `configs` of the configs it was kept for. A config that will not
      # run in them (your server's best, out of the rounds) gives its part
      # back to the confirmation.
      def confirmation_deadline(configs: cores_configs)
        kept = cores_configs || 1
        deadline - scaling_s * configs.to_i.clamp(1, kept) / kept
      end

      def scaling? = scaling_s.positive?

      # When the looks and searches of `servers` end: before the head to
      # head and the reserve. Every first look comes before the head to
      # head: a budget that cannot hold both cuts the head to head (the
      # confirmation decides anyway).
      def searches_end(servers, now: Support::Clock.now)
        finalists = Estimate.head_to_head_s([servers, Triage::FINALISTS].min, duration: duration_s)
        looks = LOOK_SLACK * servers * per_candidate_s
        finalists = finalists.clamp(0.0, [deadline - reserve_s - looks - now, 0.0].max)
        deadline - finalists - reserve_s
      end

      # The budget's arithmetic at the app's pace (the least search of every
      # server, the whole tune, the reserve), before anything starts.
      Planner = Struct.new(:plan, :pace, :tune_runtime, keyword_init: true)

      class Planner
        # The confirmation's time is kept first, for the answer, the
        # runner-up (a second server) and the baseline; what the least
        # search of every server would need is said against the rest.
        def call(given:, say:, detail:)
          max = plan.load.max_time
          per = per_candidate_s
          least = Estimate.least(plan.servers.filter_map { |adapter| least_search(adapter) }, per_candidate_s: per,
            duel_s: Estimate.duel_s(duration: plan.load.duration))
          need = whole_s(least, per, confirmation_s + scaling_s)
          # The cores rounds come last: they get their time only when the
          # budget holds the whole tune, never at the confirmation's cost.
          scaling = (need <= max) ? scaling_s : 0.0
          budget = TimeBudget.new(max_s: max, per_candidate_s: per, look_s: per_candidate_s(steps: Estimate::LEAST_LEVELS),
            reserve_s: reserve_s(max, per, confirmation_s + scaling),
            scaling_s: scaling, cores_rounds_s: scaling_s, duration_s: plan.load.duration, cores_configs: cores_configs).freeze
          Estimate.short_lines(need, budget_s: max).each { |line| say.call(line) }
          detail_lines(budget, least, given).each { |line| detail.call(line) }
          say.call(kept_line(budget))
          budget
        end

        private

        # The rounds keep all their time when the budget holds them beside
        # every server's first look; a shorter one gives the looks their
        # time first, and the rounds at least SHARE of it, or what the
        # fewest rounds that compare need (.compared_s) up to MOST_SHARE.
        def reserve_s(max, per, reserve)
          looks = LOOK_SLACK * plan.servers.size * per
          floor = compared_s.clamp(Confirmation::SHARE * max, MOST_SHARE * max)
          [reserve, (max - looks < floor) ? floor : max - looks].min.round
        end

        # The fewest rounds a paired ratio is read from (Stats::Paired), and
        # one round more: a slow app's rounds ran a quarter over their
        # estimate, and a round is begun only when a whole one fits.
        def compared_s = (Stats::PairedMethod::MINIMUM + 1) * confirmation_s / Confirmation::MIN_ROUNDS

        # What the reserve holds: MIN_ROUNDS rounds or more, else about how
        # many at the app's pace, and what MIN_ROUNDS would need.
        def kept_line(budget)
          round_s = confirmation_s / Confirmation::MIN_ROUNDS
          held = (budget.reserve_s - budget.scaling_s) / round_s
          rounds = if held.round >= Confirmation::MIN_ROUNDS then "#{Confirmation::MIN_ROUNDS}+ confirmation rounds"
          else "#{(held < 0.5) ? "less than 1" : "about #{held.round}"} confirmation #{(held.round == 1) ? "round" : "rounds"} " \
            "(#{Confirmation::MIN_ROUNDS} need #{confirmation_s.round} s)"
          end
          "tune: #{budget.reserve_s} of #{budget.max_s.round} s kept for #{rounds}#{" and the cores rounds" if budget.scaling?}; the rest for the search"
        end

        def detail_lines(budget, least, given)
          return [] if least.empty?
          Estimate.lines(least, budget_s: budget.max_s - budget.reserve_s, per_candidate_s: budget.per_candidate_s, given: given) +
            ["tune: the least search: #{least.map { |s| "#{s.server} #{s.candidates}" }.join(", ")} candidates"]
        end

        # The answer, the runner-up, your config and your server's best config.
        def confirmation_s
          sides = [plan.servers.size, 2].min + ((plan.servers.size > 2) ? 2 : 1)
          Confirmation.reserve_s(sides: sides, boot_s: boot_s, duration: plan.load.duration, warmup: plan.load.warmup, request_ms: request_ms)
        end

        # The time kept for the scaling rounds (none on one core): the
        # answer's config, and your server's best config beside it when
        # there are other servers to answer.
        def scaling_s
          return 0.0 if plan.machine.cores < 2
          Scaling::ROUNDS * 2 * cores_configs * Confirmation.side_s(boot_s: boot_s, duration: plan.load.duration, warmup: plan.load.warmup,
            request_ms: request_ms)
        end

        def cores_configs = (plan.servers.size > 1) ? 2 : 1

        def per_candidate_s(steps: Trial::LOOK_STEPS)
          Estimate.per_candidate_s(warmup: plan.load.warmup, duration: plan.load.duration, boot_s: boot_s, level_s: level_s, steps: steps)
        end

        # Seconds a server takes to boot the app: the pace's boot and a second, else a guess.
        def boot_s
          return pace.boot_s + 1.0 if pace
          Estimate::BOOT_S.fetch(plan.app.rails? ? :rails : :rack)
        end

        # A request's time on one core at the app's pace (0 when not measured).
        def request_ms = pace ? 1000.0 / pace.rps_per_core : 0.0

        # An open level's length at the app's pace: enough requests for a p99 (Scenarios::Sustained).
        def level_s
          return plan.load.duration unless pace
          Scenarios::Sustained::MIN_REQUESTS / (Scenarios::Sustained::FIRST * pace.rps_per_core * plan.machine.server_cores)
        end

        # The whole tune at this pace (Estimate.whole_s): the leaders searched
        # are taken as the costliest least searches, one more for your server's.
        def whole_s(least, per, reserve)
          finalists = [plan.servers.size, Triage::FINALISTS].min
          Estimate.whole_s(looks: plan.servers.size, searched: least.max_by(Triage::SEARCHED + 1, &:seconds), per_candidate_s: per,
            head_to_head_s: Estimate.head_to_head_s(finalists, duration: plan.load.duration), confirmation_s: reserve)
        end

        # [server key, settings searched, in an envelope?], or nil for a server with nothing to search.
        def least_search(adapter)
          space = Space.searched(adapter, machine: plan.machine, tune_runtime: tune_runtime)
          space.empty? ? nil : [adapter.key, space.dimensions.size, adapter.envelope.bounded?]
        end
      end
    end
  end
end
