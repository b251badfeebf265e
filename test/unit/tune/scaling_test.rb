# frozen_string_literal: true

require_relative "../../test_helper"
require "support/confirmation_figures"
require "arena"
require "arena/tune"

module Arena
  # What the answer becomes on more cores (lib/arena/tune/scaling.rb): its
  # rules on values, and the line the answer says.
  class TuneScalingTest < Minitest::Test
    cover "Arena::Tune::Scaling*"
    cover "Arena::Tune::AnswerWords*"
    include ConfirmationFigures

    S = Tune::Scaling
    MACHINE = Plan::Machine.new(cores: 2).freeze

    def puma(settings) = Servers::Puma.new(settings: settings, machine: MACHINE)

    # A measurement as results.json holds it, read back as Results::Measurement reads it.
    def record(server, variant, loader, cpu) = Results::Measurement.from_h({"server" => server, "workload" => "w", "scenario" => "sustained",
      "variant" => variant, "summary" => {"good_rps" => 1.0, "loader_cpu_pct" => loader}, "probes" => {"cpu_pct_mean" => cpu}})

    def test_the_engine_share_is_the_median_of_the_searchs_closed_maxima_of_that_config
      records = [record("a", "closed-max", 3.0, 100.0), record("a", "closed-max", 5.0, 100.0), record("a", "closed-max", 4.0, 100.0),
        record("a", "90%", 50.0, 100.0), record("b", "closed-max", 50.0, 100.0), record("a", "closed-max", 1.0, 0.0)]
      assert_in_delta 0.04, S.engine_share(records, "a"), 1e-9
      assert_nil S.engine_share(records, "c")
    end

    def test_measured_only_where_it_is_fair
      adapter = puma("workers" => "1", "threads" => "4")
      assert_nil S.unmeasurable(cores: 2, share: 0.03, adapter: adapter)
      assert_equal "this machine has one core", S.unmeasurable(cores: 1, share: 0.03, adapter: adapter)
      assert_equal "the engine's CPU is 8% of the server's a request, over 5%",
        S.unmeasurable(cores: 2, share: 0.08, adapter: adapter)
      assert_equal "the engine's CPU share was not measured", S.unmeasurable(cores: 2, share: nil, adapter: adapter)
      refute_nil S.unmeasurable(cores: 2, share: 0.01, adapter: Servers::Webrick.new(settings: {}, machine: MACHINE)), "no process setting"
      thin = Servers::Thin.new(settings: {"servers" => 1}, machine: MACHINE)
      assert_equal "thin's processes listen on ports of their own: more than one needs --front nginx",
        S.unmeasurable(cores: 2, share: 0.01, adapter: thin)
      assert_nil S.unmeasurable(cores: 2, share: 0.01, adapter: thin, front: "nginx")
    end

    def test_scaled_multiplies_the_processes_single_mode_counting_one
      assert_equal 4, S.scaled(puma("workers" => "2", "threads" => "4"), 2).settings["workers"].to_i
      assert_equal 2, S.scaled(puma("workers" => "0", "threads" => "3"), 2).settings["workers"].to_i
      assert_equal 3, S.scaled(puma("workers" => "0", "threads" => "3"), 2).settings["threads"].to_i, "threads stay"
    end

    def test_the_factor_is_the_paired_ratio_of_every_core_to_one
      one = Side.new(role: "1 core", adapter: Struct.new(:label).new("one"), rps: (1..6).to_h { |n| [n, 100.0 * (1 + 0.01 * (-1)**n)] }, p99_ms: {}, pss_kb: {})
      many = Side.new(role: "2 cores", adapter: Struct.new(:label).new("two"), rps: (1..6).to_h { |n| [n, 190.0 * (1 + 0.01 * (-1)**n)] }, p99_ms: {}, pss_kb: {})
      rounds = (1..6).map { |n| Round.new(number: n, order: [], speeds: {}) }
      ratio, (low, high) = S.factor(Result.new(sides: [one, many], rounds: rounds, flagged: [], median_ms: nil, stopped: "precise"))
      assert_in_delta 1.9, ratio, 0.001
      assert_operator low, :<=, ratio
      assert_operator high, :>=, ratio
    end

    # A tune that kept no time for them says what rules them out here, else
    # the resume that measures them, timed at the confirmation's pace (6
    # rounds of 2 configs at 130 s a round of 4: 390 s).
    def test_a_tune_without_their_time_says_why_or_how_to_measure_them
      adapter = puma("workers" => "1", "threads" => "4")
      closed = [record(adapter.label, "closed-max", 2.0, 100.0)]
      assert_equal "no time in this tune; `arena tune --resume /d --max-time 390` measures it",
        S.unkept(adapter, cores: 2, measurements: closed, dir: "/d", seconds: S.rounds_s(130.0, sides: 4))
      assert_equal "the engine's CPU is 9% of the server's a request, over 5%",
        S.unkept(adapter, cores: 2, measurements: [record(adapter.label, "closed-max", 9.0, 100.0)], dir: "/d", seconds: 390)
      assert_equal "this machine has one core", S.unkept(adapter, cores: 1, measurements: closed, dir: "/d", seconds: 390)
      assert_nil S.rounds_s(nil, sides: 4)
      assert_nil S.rounds_s(130.0, sides: 0)
      assert_in_delta 240.0, S.rounds_s(60.0, sides: 3)
      assert_in_delta 480.0, S.rounds_s(60.0, sides: 3, configs: 2), 1e-9, "the stay config's pair beside the answer's"
    end

    # Your server's best config joins the answer's cores rounds only when it
    # is another config, fair to measure, and the time holds both pairs.
    def test_the_stay_config_joins_only_where_it_is_another_fair_config_with_time
      answer = puma("workers" => "1", "threads" => "4")
      stay = puma("workers" => "1", "threads" => "5")
      fair = [record(answer.label, "closed-max", 2.0, 100.0), record(stay.label, "closed-max", 2.0, 100.0)]
      store = ->(ms) { Struct.new(:view).new(Struct.new(:measurements).new(ms)) }
      plan = Struct.new(:machine, :out_dir, :front).new(MACHINE, "/d", nil)
      scaling = ->(ms, deadline) { S.new(plan: plan, store: store.call(ms), engine: nil, workload: nil, deadline: deadline, seed: 1) }
      later = Support::Clock.now + 1000
      assert_equal [[stay, :inst], nil], scaling.call(fair, later).send(:staying, answer, [stay, :inst], 20.0)
      assert_equal [nil, nil], scaling.call(fair, later).send(:staying, answer, [answer, :inst], 20.0), "the answer's own config"
      assert_equal [nil, nil], scaling.call(fair, later).send(:staying, answer, nil, 20.0)
      assert_equal [nil, "the engine's CPU share was not measured"], scaling.call(fair.first(1), later).send(:staying, answer, [stay, :inst], 20.0)
      assert_equal [nil, "no time left for its rounds beside the answer's"],
        scaling.call(fair, Support::Clock.now + 6 * 4 * 20.0 - 5).send(:staying, answer, [stay, :inst], 20.0), "6 rounds of 4 sides at 20 s"
      assert_equal [[stay, :inst], nil], scaling.call(fair, Support::Clock.now + 6 * 4 * 20.0 + 5).send(:staying, answer, [stay, :inst], 20.0)
    end

    # Your server's best config on every core, under the stay line.
    def test_the_stay_config_on_every_core_or_why_not
      many = puma("workers" => "2", "threads" => "5")
      stay = S::Result.new(factor: [1.87, [1.62, 2.15]], many: many, cores: 2, rounds: 6)
      r = S::Result.new(factor: [1.93, [1.85, 2.01]], many: many, cores: 2, rounds: 6, stay: stay)
      assert_equal "stay on puma, on 2 cores: workers=2 threads=5: 1.87× (1.62–2.15) one core", Tune::AnswerWords.stay_cores(r, "puma")
      r = S::Result.new(factor: [1.93, [1.85, 2.01]], cores: 2, stay: S::Result.new(cores: 2, why: "puma has no process setting"))
      assert_equal "stay on puma, on 2 cores: not measured (puma has no process setting)", Tune::AnswerWords.stay_cores(r, "puma")
      assert_nil Tune::AnswerWords.stay_cores(S::Result.new(factor: [1.9, [1.8, 2.0]], cores: 2), "puma"), "the stay config did not join"
      assert_nil Tune::AnswerWords.stay_cores(nil, "puma")
    end

    # The answer's memory on the whole box against --memory: the cores
    # rounds' PSS where they ran, else the rounds' times cores.
    def test_the_memory_on_the_box_against_the_budget
      one = puma("workers" => "1", "threads" => "4")
      measured = S::Result.new(factor: [1.9, [1.8, 2.0]], one: one, cores: 2, server_cores: 1, pss_kb: 250 * 1024)
      assert_equal "memory on 2 cores: 2 processes, 250.0 MiB PSS (measured), within --memory 17.60 GiB",
        Tune::AnswerWords.box_memory(measured, pss_kb: 130 * 1024, budget_mib: 17.6 * 1024, server_cores: 1)
      unmeasured = S::Result.new(one: one, cores: 4, server_cores: 1, why: "no time")
      assert_equal "memory on 4 cores: 4 processes, 520.0 MiB PSS (estimated), within --memory 1.00 GiB",
        Tune::AnswerWords.box_memory(unmeasured, pss_kb: 130 * 1024, budget_mib: 1024, server_cores: 1)
      assert_equal "memory on 4 cores: 4 processes, 520.0 MiB PSS (estimated), over --memory 300.0 MiB: 2 processes fit",
        Tune::AnswerWords.box_memory(unmeasured, pss_kb: 130 * 1024, budget_mib: 300, server_cores: 1)
      assert_nil Tune::AnswerWords.box_memory(unmeasured, pss_kb: nil, budget_mib: 300, server_cores: 1), "no PSS read"
      [[nil, 130, 300, 1], [unmeasured, 130, nil, 1], [unmeasured, 130, 300, 0], [unmeasured, 130, 300, nil], [S::Result.new(cores: 2), 130, 300, 1]]
        .each { |r, pss, budget, cores| assert_nil Tune::AnswerWords.box_memory(r, pss_kb: pss && pss * 1024, budget_mib: budget, server_cores: cores) }
      two = S::Result.new(one: puma("workers" => "4", "threads" => "4"), cores: 4, server_cores: 2, why: "no time")
      assert_equal "memory on 4 cores: 8 processes, 800.0 MiB PSS (estimated), within --memory 800.0 MiB",
        Tune::AnswerWords.box_memory(two, pss_kb: 400 * 1024, budget_mib: 800, server_cores: 2), "2 processes a core; at the budget is within"
      assert_equal "memory on 4 cores: 8 processes, 800.0 MiB PSS (estimated), over --memory 150.0 MiB: 1 process fits",
        Tune::AnswerWords.box_memory(two, pss_kb: 400 * 1024, budget_mib: 150, server_cores: 2)
      single = S::Result.new(one: puma("workers" => "0", "threads" => "4"), cores: 2, server_cores: 4, why: "no time")
      assert_match(/\Amemory on 2 cores: 1 process, /, Tune::AnswerWords.box_memory(single, pss_kb: 400 * 1024, budget_mib: 800, server_cores: 4),
        "half a process on the box reads one")
      measured_nil = S::Result.new(factor: [1.9, [1.8, 2.0]], one: one, cores: 2, server_cores: 1)
      assert_match(/\(estimated\)/, Tune::AnswerWords.box_memory(measured_nil, pss_kb: 130 * 1024, budget_mib: 1024, server_cores: 1),
        "measured rounds without a PSS reading: estimated")
    end

    def test_the_answer_says_the_factor_or_why_not
      many = puma("workers" => "2", "threads" => "4")
      r = S::Result.new(factor: [1.93, [1.85, 2.01]], many: many, cores: 2, rounds: 6)
      assert_equal ["on 2 cores: puma workers=2 threads=4: 1.93× (1.85–2.01) one core",
        "on N cores: N× the processes, if the database keeps up (measured to 2)"], Tune::AnswerWords.scaling(r)
      assert_equal ["on 2 cores: not measured (this machine has one core)"], Tune::AnswerWords.scaling(S::Result.new(cores: 2, why: "this machine has one core"))
    end
  end
end
