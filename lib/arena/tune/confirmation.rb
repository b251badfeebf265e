# frozen_string_literal: true

require_relative "../core"
require_relative "../launch/local_server"
require_relative "../launch/session"
require_relative "../launch/starter"
require_relative "../load/options"
require_relative "../probes/machine_speed"
require_relative "../results/store"
require_relative "../run/rounds"
require_relative "../stats/difference"
require_relative "../support/format"
require_relative "../verdicts/limits"

module Arena
  module Tune
    # The confirmation rounds: after the search, the answer, the runner-up
    # and the baseline (what the app runs today) meet in rounds of their
    # own, and only these rounds give the answer's margin and gain. The
    # search selected its configs on its own figures, so those figures
    # favour them (the winner's curse); fresh rounds do not.
    #
    # - Every config starts afresh in every round (the search's servers are
    #   stopped), with every probe off: no queue-time wrapper in the server,
    #   no sampler during a load (the steady scenario reads memory before and
    #   after it). On this 2-core VM one start of a config served ~25% more
    #   than another start of it minutes later while its rival's did not
    #   move, so rounds of one start gave intervals that re-runs fell outside
    #   of; a start per round puts that spread inside the interval, as
    #   hyperfine runs a fresh process per run.
    # - Each round runs each config once (start, warm-up, load, stop), in an
    #   order shuffled per round (Rounds, RMIT), so a round's figures sit side
    #   by side in time and their ratios cancel the machine's drift (tango's
    #   paired benchmarking, Stats.paired).
    # - Before each load, a machine-speed reading on the server's cores
    #   (Probes::MachineSpeed). A round read more than 15% off the run's
    #   median speed is flagged, left out of the figures, and another round
    #   is run in its place while the time lasts.
    # - At least MIN_ROUNDS counted rounds, then more until the judge says
    #   every ratio's interval is within ±TARGET_PCT (Confirmed.narrow?), or the deadline.
    class Confirmation
      MIN_ROUNDS = 8
      MAX_ROUNDS = 40
      TARGET_PCT = 5.0
      # A confirmation round's measurement in results.json, apart from the search's.
      VARIANT = "confirmation"
      # One config at a time on the server's cores, the engine on the other.
      DESIGN = "sequential"

      # role: "answer", "runner-up" or "baseline"; rps, p99_ms, pss_kb:
      # {round number => figure} (nil where none); failed: why it is out.
      Side = Struct.new(:role, :adapter, :installation, :rps, :p99_ms, :pss_kb, :failed, keyword_init: true) do
        def self.of(role:, adapter:, installation:) = new(role: role, adapter: adapter, installation: installation, rps: {}, p99_ms: {}, pss_kb: {})

        def key = adapter.label

        def alive? = failed.nil?
      end

      # One round: its number, the order it ran in, each load's speed reading
      # (label => Reading), the seconds it took and its design (DESIGN).
      Round = Struct.new(:number, :order, :speeds, :seconds, :design, keyword_init: true) do
        def speed_ms = speeds.values.compact.then { |r| r.empty? ? nil : r.sum(&:total_ms) / r.size }
      end

      Result = Struct.new(:sides, :rounds, :flagged, :median_ms, :stopped, keyword_init: true) do
        # The rounds not flagged for the machine's speed.
        def unflagged = rounds.reject { |r| flagged.include?(r.number) }

        # The rounds the figures come from: those not flagged, while they are
        # MIN_ROUNDS or more; else every round (on a machine busy for minutes,
        # 7 of 10 rounds read >15% off and 3 rounds gave an interval of
        # 0.05-9.4x, while the readings did not follow the figures: r = 0.07).
        def counted = (unflagged.size >= MIN_ROUNDS) ? unflagged : rounds

        def flagged_kept? = counted.size > unflagged.size

        def counted_numbers = counted.map(&:number)

        def side(role) = sides.find { |s| s.role == role }
      end

      # The most of a tune's budget kept for the rounds: a short --max-time
      # still leaves the search most of it.
      SHARE = 0.4

      # seconds: what the rounds are expected to take, for the time kept for
      # them before the search: MIN_ROUNDS rounds of `sides` starts and loads.
      def self.reserve_s(sides:, boot_s:, duration:, warmup:, request_ms: 0.0)
        MIN_ROUNDS * sides * side_s(boot_s: boot_s, duration: duration, warmup: warmup, request_ms: request_ms)
      end

      # One config's turn in a round: a start, a warm-up, a reading, a load
      # and a stop, and START_REQUESTS of the app's requests one at a time
      # (request_ms each, Plan::Pace's).
      def self.side_s(boot_s:, duration:, warmup:, request_ms: 0.0)
        boot_s + warm_s(duration: duration, warmup: warmup) + 2.0 + duration + warmup + 1.5 + START_REQUESTS * request_ms / 1000.0
      end

      # What a turn spends at the app's pace besides its loads: the
      # verification's probes, the unloaded baseline's 20 or more, the
      # warm-up's last slice running past its cap and the settle while the
      # warm-up's requests drain. Read from three tunes of two real Rails
      # apps of 40-55 ms a request, their turns ran 20, 170 and 245
      # requests' time over the estimate without it (1-10 s): the mean.
      # A 1 ms app's is 0.15 s.
      START_REQUESTS = 150

      # A start's warm-up runs until the server is steady, within the
      # plan's bound (--warmup-max, else 2 x -d within 2-10 s), as every
      # other start's does, `arena run`'s included. A slow app's loads are
      # stretched past STRETCHED_S to hold enough requests, and its warm-up
      # slices hold too few to read steady: it runs to the bound. A fast
      # app's is steady in about 2 warm-ups. A bound of 4 s left a Rails
      # app's Puma of 3 threads colder than Falcon's one shared database
      # connection: its rounds read Falcon 1.17x Puma where 12 rounds warmed
      # for 10 s read 1.00x.
      STRETCHED_S = 2.0
      def self.warm_s(duration:, warmup:)
        (duration > STRETCHED_S) ? (2 * duration).clamp(2.0, 10.0) : 2 * warmup
      end

      # deadline: when the last round must end, or (sides still in the
      # rounds) -> that time; speed: the reading (Probes::MachineSpeed's `read(cpus:)`); clock: Support::Clock;
      # judge: (Result) -> true when its intervals are narrow enough (Confirmed.narrow?);
      # session_for: (side, index) -> the side's session, started afresh each round (a Launch::Session by default);
      # variant: what results.json calls these rounds' measurements, readings and rounds (other rounds
      # run this way, Scaling's, keep apart from the confirmation's that `arena tune --resume` reads back).
      def initialize(plan:, store:, engine:, workload:, deadline:, seed:, log: ->(_) {}, speed: Probes::MachineSpeed,
        clock: Support::Clock, min_rounds: MIN_ROUNDS, judge: nil, session_for: nil, variant: VARIANT)
        @plan = plan.with(load: plan.load.with(queue_time: "off"))
        @store = store
        @engine = engine
        @workload = workload
        @deadline = deadline
        @seed = seed
        @log = log
        @speed = speed
        @clock = clock
        @min_rounds = min_rounds
        @judge = judge
        @session_for = session_for || method(:server_session)
        @sessions = {}
        @variant = variant
      end

      # The plan the rounds run under: the tune's, with queue time off.
      attr_reader :plan

      # sides: [Side] (each config once: a baseline that is the answer's
      # config is not started twice) -> Result. prior: the rounds of an
      # earlier run of the same sides (`arena tune --resume`), their figures
      # already in the sides: the rounds go on from the last of them, and
      # MAX_ROUNDS more may run.
      def call(sides, prior: [])
        sides.each_with_index { |side, i| @sessions[side.role] = @session_for.call(side, i) }
        rounds = prior.dup
        @turns = prior.filter_map { |r| r.seconds / r.order.size if r.seconds && !r.order.empty? }
        stopped = loop do
          alive = sides.select(&:alive?)
          break "nothing left to compare" if alive.empty? || (alive.size < 2 && sides.size > 1)
          break "time" unless fits?(alive)
          rounds << round(alive, (rounds.map(&:number).max || 0) + 1)
          result = result(sides, rounds, nil)
          break "precise" if result.unflagged.size >= @min_rounds && @judge&.call(result)
          break "most rounds" if rounds.size - prior.size >= MAX_ROUNDS
        end
        result(sides, rounds, stopped).tap { |r| @store.add_speed_summary(median_ms: r.median_ms, flagged: r.flagged) }
      ensure
        @sessions.clear
      end

      # The seconds a config's turn in a round is planned at: the mean of
      # the turns so far (a round's seconds over its configs) and, from
      # SPREAD_FROM turns on, twice their spread (their sample standard
      # deviation); 0 before any. At the mean alone, a real app's sixth
      # round was begun with 60 s left, ran 66 s, and the tune 608 s of its
      # 600; the spread of two turns (34 and 28 s) kept a third round of 4
      # configs out of 132 s, and the tune compared nothing.
      SPREAD_FROM = 3
      def self.turn_s(turns)
        return 0.0 if turns.empty?
        return turns.sum / turns.size if turns.size < SPREAD_FROM
        mean, var = Stats::DifferenceMethod.mean_var(turns)
        mean + 2 * Math.sqrt(var)
      end

      # Why a config left the rounds, from its load (Results::LoadFigures):
      # "16 of 61 requests failed (16 timeout) in confirmation round 2, over
      # the 1% limit", or that it served nothing. where: the rounds' name.
      def self.failed_words(load, number, where: "confirmation round")
        return "served nothing in #{where} #{number}" unless load&.failed&.positive?
        kinds = load.nonzero_error_kinds.map { |kind, n| "#{n} #{kind.tr("_", " ")}" }
        kinds << "#{load.hung} unanswered" if load.hung.positive?
        "#{load.failed} of #{load.good + load.failed} requests failed (#{kinds.join(", ")}) in #{where} #{number}, " \
          "over the #{Verdicts::Limits::ERROR_LIMIT_PCT.round}% limit"
      end

      # Rounds flagged: their speed more than MachineSpeed::OFF from the median of all.
      def self.flagged(rounds)
        median = Probes::MachineSpeed.median_ms(rounds.flat_map { |r| r.speeds.values })
        return [[], median] unless median
        [rounds.select { |r| r.speed_ms && (median / r.speed_ms - 1).abs > Probes::MachineSpeed::OFF }.map(&:number), median]
      end

      private

      def result(sides, rounds, stopped)
        flagged, median = Confirmation.flagged(rounds)
        Result.new(sides: sides, rounds: rounds.dup.freeze, flagged: flagged.freeze, median_ms: median, stopped: stopped)
      end

      # A round is begun only when one more still fits: a turn per config
      # (Confirmation.turn_s), as many as are left to run, before the
      # deadline those left give (#initialize).
      def fits?(alive)
        deadline = @deadline.respond_to?(:call) ? @deadline.call(alive) : @deadline
        @clock.now + alive.size * Confirmation.turn_s(@turns) <= deadline
      end

      def server_session(side, index)
        Launch::Session.new(plan: @plan, adapter: side.adapter, index: 300 + index, starter: Launch::Starter.new(plan: @plan),
          engine: @engine, store: Results::Store::FirstStart.new(@store), installation: side.installation)
      end

      # The side's server started and warmed afresh; false (the side out) when it did not start.
      def start(side, number)
        session = @sessions.fetch(side.role)
        session.start([@workload])
        session.warm_up(Scenarios::Steady.new, @workload, load: @plan.load)
        true
      rescue Launch::LocalServer::Failed, Error => e
        side.failed = e.message
        @log.call("confirmation: #{side.role} #{side.key} did not start in round #{number}: #{e.message}")
        false
      end

      def round(alive, number)
        started = @clock.now
        order = Arena::Run::Rounds.order(alive, round: number, seed: @seed)
        speeds = {}
        order.each do |side|
          # Read before the start, on cores nothing else uses: read after
          # the warm-up, it shared the core with the server still serving
          # the warm-up's last requests (a 50 ms app read 0.70-0.94x on a
          # quiet machine).
          reading = @speed.read(cpus: @plan.machine.server_cpus)
          next unless start(side, number)
          speeds[side.key] = reading
          @store.add_speed(round: number, config: side.key, reading: reading, variant: @variant)
          measure(side, number)
        ensure
          @sessions.fetch(side.role).stop
        end
        seconds = @clock.now - started
        @turns << seconds / order.size
        @store.add_confirmation_round(round: number, order: order.map(&:key), seconds: seconds, design: DESIGN, variant: @variant)
        @log.call("confirmation round #{number}: #{order.map { |s| "#{s.role} #{Support::Format.rps(s.rps[number].to_f)}" }.join(", ")} req/s")
        Round.new(number: number, order: order.map(&:key), speeds: speeds.freeze, seconds: seconds, design: DESIGN).freeze
      end

      # One load of the steady scenario on the config just started; its goodput,
      # p99 and PSS, stored as a measurement of its own variant.
      def measure(side, number)
        m = @sessions.fetch(side.role).run(Scenarios::Steady.new, @workload, load: round_load).first
        m = m.with(repeat: number, variant: @variant)
        @store.add_measurement(m)
        over = m.load&.error_pct.to_f > Verdicts::Limits::ERROR_LIMIT_PCT
        side.rps[number] = over ? 0.0 : m.good_rps
        side.p99_ms[number] = m.summary&.p99_us&.then { |us| us / 1000.0 }
        side.pss_kb[number] = m.probes&.pss_peak_kb
        side.failed = Confirmation.failed_words(m.load, number) unless side.rps[number].positive?
      rescue Launch::LocalServer::Failed, Error => e
        side.failed = "failed in confirmation round #{number}: #{e.message}"
      end

      def round_load = Load::Options.new(**@plan.load.to_h, warmup_max: 0.0).freeze
    end
  end
end
