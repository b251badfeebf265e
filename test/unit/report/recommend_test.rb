# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# Recommendations from real runs: each pick cites its figures; a use case the
# run did not measure says what to run.
class RecommendTest < Minitest::Test
  cover "Arena::Report::Recommend*"
  cover "Arena::Verdicts::Pick*"

  FIXTURES = File.expand_path("../../fixtures/results", __dir__)
  # The fixtures' configs (puma:workers=2,threads=2,preload=false, ...), named
  # as a person reads them: by the settings that differ from the defaults.
  PUMA = "puma:threads=2"
  UNICORN = "unicorn"
  FALCON = "falcon"

  def recommend(fixture)
    document = Arena::Report::Source.open(File.join(FIXTURES, fixture)).view
    Arena::Report::Recommend.new(document).call.to_h { |r| [r.use_case, r] }
  end

  # Two runs each: too few for the test, so no pick, both named.
  def test_steady_run_names_both_and_asks_for_runs_and_names_what_to_run_for_the_rest
    r = recommend("steady")
    api = r["fast request/response API"]
    assert_nil api.pick
    assert_equal "#{PUMA} 5,651 good req/s (4,363–6,938 over 2 runs), p99 11.8ms, CPU 38% on server; " \
      "runner-up #{FALCON} 3,982 good req/s (3,831–4,133 over 2 runs), p99 14.2ms, CPU 31%; not distinguishable: " \
      "#{PUMA} and #{FALCON} here: #{FALCON} has 2 round(s), #{PUMA} 2; the test needs 3 each", api.because
    assert_equal "arena run --rounds 3", api.run
    assert_equal FALCON, r["limited memory or many small apps"].pick
    # Unicorn (1,592 req/s, under half of Puma's 5,651) is smaller-serving: weighed out, not picked.
    assert_equal "PSS peak 50.8 MiB (RSS 99.2 MiB) at 3,982 good req/s on server with 2 workers, among the servers within " \
      "50% of the best goodput (5,651 req/s); runner-up #{PUMA} 56.7 MiB with 2 workers at 5,651 req/s: 1.12x the memory; " \
      "1 smaller-serving server(s) left out", r["limited memory or many small apps"].because
    assert_nil r["waiting on I/O or long requests"].pick
    assert_equal "arena run --workload sleep --scenario steady,rate", r["waiting on I/O or long requests"].run
    assert_equal "arena run --scenario crash,restart", r["surviving crashes and deploys"].run
    assert_equal "arena run --scenario slow-clients", r["slow clients without a proxy"].run
  end

  def test_sleep_workload_cites_too_few_responses
    io = recommend("steady-again")["waiting on I/O or long requests"]
    # 16 responses in each run: too few for a p99, and the line says so.
    assert_match(/\A#{Regexp.escape(FALCON)} 8\.0 good req\/s \(8\.0–8\.0 over 2 runs\), p99 n=16 too small, CPU 0% on sleep; runner-up #{Regexp.escape(PUMA)} 4\.0 good req\/s/o, io.because)
  end

  def test_scenario_run_ranks_resilience_and_slow_clients
    r = recommend("scenarios")
    resilience = r["surviving crashes and deploys"]
    assert_equal UNICORN, resilience.pick
    assert resilience.because.start_with?("worker killed: replaced, 0 errors after, back to 90% throughput in 2.0s; " \
      "usr2_quit restart: 0 failed requests, longest 60.7ms, dip 50.3%. runner-up #{PUMA}: ")
    slow = r["slow clients without a proxy"]
    assert_equal PUMA, slow.pick
    assert_equal "kept 74% of its goodput beside 4 slow headers clients (13,324 → 9,849 req/s); runner-up #{UNICORN} kept 0%", slow.because
    # The run measured the server workload, but not in the steady scenario.
    assert_equal "arena run --workload server --scenario steady", r["fast request/response API"].run
    assert_equal "arena run --workload pi", r["CPU-bound work"].run
  end

  def row(server, rps, p99: 1000, count: nil, flags: nil)
    m = {"server" => server, "workload" => "server", "scenario" => "steady", "variant" => "keep-alive",
         "load" => {"throughput_rps" => rps, "requests" => {"completed" => count || rps}, "latency_us" => {"count" => count || rps, "p99" => p99}}}
    flags ? m.merge("summary" => {"good_rps" => rps, "flags" => flags}) : m
  end

  def api(*rows) = Arena::Report::Recommend.new(Arena::Results::Document.from_h({"measurements" => rows.flatten})).call.first

  def test_a_significant_lead_in_goodput_is_the_pick
    a = api([1000, 1010, 990].map { |v| row("a", v) }, [800, 810, 790].map { |v| row("b", v) })
    assert_equal "a", a.pick
    assert_match(/; pick: goodput: a is \+25\.0% against b \(95% interval/, a.because)
    assert_nil a.run
  end

  def test_spreads_that_overlap_are_not_distinguishable
    a = api([900, 1100, 1000].map { |v| row("s0", v) }, [800, 1000, 950].map { |v| row("s1", v) })
    assert_nil a.pick
    assert_includes a.because, "; not distinguishable: s0 and s1 here: s0 is "
  end

  # The issue: A at 1.10x the goodput with a p99 of 400 ms over B at 6 ms.
  def test_a_lead_bought_with_latency_is_a_trade_off_not_a_pick
    a = api([1100, 1101, 1099].map { |v| row("a", v, p99: 400_000) }, [1000, 1001, 999].map { |v| row("b", v, p99: 6_000) })
    assert_nil a.pick
    assert_match(/; trade-off: a serves more \(a is \+10\.0% against b .*\); b answers faster \(p99: a is \+6566\.7% against b/, a.because)
    # 1.02x is inside the ±3% band: goodput is equivalent and the lower p99 picks.
    small = api([1020, 1021, 1019].map { |v| row("a", v, p99: 400_000) }, [1000, 1001, 999].map { |v| row("b", v, p99: 6_000) })
    assert_equal "b", small.pick
    assert_match(/; pick: goodput equivalent within ±3%: .*; p99 lower beyond ±3%: /, small.because)
    one_run_each = api(row("a", 1020, p99: 400_000), row("b", 1000, p99: 6_000))
    assert_nil one_run_each.pick, "one run each: nothing is known"
  end

  def test_where_goodput_is_equivalent_a_lower_p99_picks
    a = api([1000, 1005, 995].map { |v| row("a", v, p99: 40_000) }, [990, 995, 992].map { |v| row("b", v, p99: 6_000) })
    assert_equal "b", a.pick
    assert_includes a.because, "; pick: goodput equivalent within ±3%: "
    wide = api([1000, 1050, 950].map { |v| row("a", v, p99: 40_000) }, [990, 1040, 960].map { |v| row("b", v, p99: 6_000) })
    assert_nil wide.pick, "goodput only not distinguishable: p99 does not pick"
  end

  # The issue: an exact tie with one run each was broken by sort order.
  def test_an_exact_tie_is_not_broken_by_order
    [[row("a", 1000), row("b", 1000)], [row("b", 1000), row("a", 1000)]].each do |rows|
      assert_nil api(rows).pick
    end
    tie = api([1000, 1000, 1000].map { |v| row("a", v) }, [1000, 1000, 1000].map { |v| row("b", v) })
    assert_nil tie.pick
  end

  # The issue: two loader-bound rows, one picked at 1.01x with no caveat.
  def test_a_held_down_runner_up_cannot_be_beaten
    a = api([1010, 1011, 1009].map { |v| row("a", v, flags: ["loader-bound"]) }, [1000, 1001, 999].map { |v| row("b", v, flags: ["loader-bound"]) })
    assert_nil a.pick
    assert_includes a.because, "; cannot judge: runner-up b is loader-bound: its figure may not be the server's"
    a = api([1000, 1010, 990].map { |v| row("a", v) }, [800, 810, 790].map { |v| row("b", v, flags: ["did-not-settle"]) })
    assert_nil a.pick
    assert_includes a.because, "runner-up b is did-not-settle"
    a = api([1000, 1010, 990].map { |v| row("a", v, flags: ["loader-bound"]) }, [800, 810, 790].map { |v| row("b", v) })
    assert_equal "a", a.pick
    assert_includes a.because, "(a is loader-bound: it may serve more still)"
  end

  def test_the_pick_rule_on_values
    c = ->(name, rps, p99 = []) { Arena::Verdicts::Pick::Candidate.new(name: name, rps: rps, p99: p99, flags: []) }
    assert_equal "cannot judge: no server measured", Arena::Verdicts::Pick.call([]).verdict.to_s
    only = Arena::Verdicts::Pick.call([c.call("a", [5])])
    assert_equal ["pick: the only server measured", "a"], [only.verdict.to_s, only.pick.name]
    # One server's several rows (configs) count once, its best.
    two = Arena::Verdicts::Pick.call([c.call("a", [10, 10, 10]), c.call("a", [50, 51, 49]), c.call("b", [20, 21, 19])])
    assert_equal ["a", "b"], [two.pick.name, two.runner_up.name]
  end

  # The issue: slow-clients named the same server as pick and runner-up
  # (its two variants).
  def test_slow_clients_ranks_servers_not_variants
    run = ->(server, variant, ratio) do
      {"server" => server, "workload" => "server", "scenario" => "slow-clients", "variant" => variant,
       "load" => {"throughput_rps" => 100 * ratio.to_f, "requests" => {"completed" => 100}, "latency_us" => {"count" => 100}},
       "extra" => {"rps_ratio" => ratio, "rps_alone" => 100.0}}
    end
    doc = Arena::Results::Document.from_h({"measurements" => [run.call("puma", "with 4 slow headers", 0.9),
      run.call("puma", "with 4 slow bodies", 0.8), run.call("unicorn", "with 4 slow headers", 0.1)]})
    slow = Arena::Report::Recommend.new(doc).call.last
    assert_equal "puma", slow.pick
    assert_equal "kept 90% of its goodput beside 4 slow headers clients (100 → 90.0 req/s); runner-up unicorn kept 10%", slow.because
    assert_equal "arena run --scenario slow-clients --front nginx", slow.run
    # Its best variant given last, and a run without a ratio (it did not finish) left out.
    doc = Arena::Results::Document.from_h({"measurements" => [run.call("puma", "with 4 slow bodies", 0.8), run.call("puma", "with 4 slow headers", 0.9),
      run.call("thin", "with 4 slow headers", nil)]})
    alone = Arena::Report::Recommend.new(doc).call.last
    assert_equal ["puma", "kept 90% of its goodput beside 4 slow headers clients (100 → 90.0 req/s)"], [alone.pick, alone.because]
  end

  def test_single_runs_ask_for_repeats
    api = recommend("older-schema")["fast request/response API"]
    assert_nil api.pick
    assert_equal "arena run --rounds 3", api.run
    assert_nil recommend("older-schema")["limited memory or many small apps"].pick
  end

  def event_run(server, scenario, variant, extra)
    {"server" => server, "workload" => "server", "scenario" => scenario, "variant" => variant,
     "load" => {"throughput_rps" => 100, "requests" => {"completed" => 100}, "latency_us" => {"count" => 100}}, "extra" => extra}
  end

  def crash(server, outcome: "replaced", recovered: true, errors: 0, recovery: 1.0)
    event_run(server, "crash", "kill", {"outcome" => outcome, "recovered" => recovered, "errors_after_event" => errors, "recovery_s" => recovery})
  end

  def restart(server, variant, failed: 0, longest: 50_000, serving: true, dip: nil)
    event_run(server, "restart", variant, {"failed_requests" => failed, "longest_us" => longest, "serving_after" => serving, "dip_pct" => dip})
  end

  def resilience(*runs) = Arena::Report::Recommend.new(Arena::Results::Document.from_h({"measurements" => runs})).call[4]

  # Ranked: a server that lost its worker, did not recover, or stopped
  # serving after a restart last; then fewer failed requests; then the faster
  # recovery; then the shorter longest wait. Each server's best restart is cited.
  def test_resilience_ranks_on_what_broke_then_failures_then_speed
    r = resilience(crash("a"), restart("a", "phased", failed: 2, longest: 80_000, dip: 12.5), restart("a", "hot"),
      crash("b", errors: 5, recovery: 0.5), restart("b", "usr2", longest: 20_000), crash("c", outcome: "lost", recovered: false, recovery: nil))
    assert_equal "surviving crashes and deploys", r.use_case
    assert_equal "a", r.pick
    assert_equal "worker killed: replaced, 0 errors after, back to 90% throughput in 1.0s; hot restart: 0 failed requests, longest 50.0ms, " \
      "dip 0%. runner-up b: worker killed: replaced, 5 errors after, back to 90% throughput in 0.5s; usr2 restart: 0 failed requests, " \
      "longest 20.0ms, dip 0%", r.because
    assert_nil r.run
    stopped = resilience(restart("d", "usr2", serving: false), restart("e", "usr2", failed: 3, dip: 12.5))
    assert_equal "e", stopped.pick, "serving after a restart outranks fewer failed requests"
    assert_equal "usr2 restart: 3 failed requests, longest 50.0ms, dip 12.5%. runner-up d: usr2 restart: 0 failed requests, longest 50.0ms, " \
      "dip 0% (NOT serving after)", stopped.because
    assert_equal "arena run --scenario crash", stopped.run
    assert_equal "c", resilience(crash("b", recovered: false), crash("c")).pick, "recovered outranks not"
    assert_equal "arena run --scenario restart", resilience(crash("b"), crash("c")).run
  end

  def test_resilience_ties_go_to_the_faster_recovery_then_the_shorter_wait
    assert_equal "b", resilience(crash("a", recovery: 1.0), restart("a", "hot"), crash("b", recovery: 0.5), restart("b", "hot")).pick
    assert_equal "a", resilience(crash("a", recovery: 1.0), restart("a", "hot", longest: 10_000), crash("b", recovery: 1.0), restart("b", "hot")).pick
    assert_equal "b", resilience(crash("a", errors: 1), crash("b", errors: 0)).pick
    none = resilience(crash("x"), restart("y", "hot"))
    assert_equal "y", none.pick, "a server without a restart, where others have one, ranks below them"
    assert_equal "hot restart: 0 failed requests, longest 50.0ms, dip 0%. runner-up x: worker killed: replaced, 0 errors after, " \
      "back to 90% throughput in 1.0s; no zero-downtime restart", none.because
    assert_equal "arena run --scenario crash,restart", resilience(event_run("z", "steady", "keep-alive", {})).run
  end

  def probed(server, rps, errors: 0, flags: nil, pss: nil, cpu: nil)
    m = {"server" => server, "workload" => "server", "scenario" => "steady", "variant" => "keep-alive",
         "load" => {"throughput_rps" => rps, "requests" => {"completed" => 1000}, "errors" => {"total" => errors}, "latency_us" => {"count" => 1000, "p99" => 2000}}}
    m["summary"] = {"good_rps" => rps, "flags" => flags} if flags
    m["probes"] = {"pss_peak_kb" => pss, "rss_peak_kb" => pss * 2, "cpu_pct_mean" => cpu || 0} if pss
    m
  end

  # One run each: no spread; errors under 1%, CPU, stalled and pool said in the figures; workers by count.
  def test_the_figures_each_line_cites
    doc = {"servers" => [{"label" => "a", "workers" => 1}, {"label" => "b", "workers" => 3}],
           "measurements" => [probed("a", 1000, errors: 5, flags: %w[stalled pool-exhausted], pss: 51_200, cpu: 87.6), probed("b", 900, pss: 102_400)]}
    api, _, _, memory = Arena::Report::Recommend.new(Arena::Results::Document.from_h(doc)).call
    assert_equal "a 1,000 good req/s, p99 2.0ms, CPU 88%, 0.50% errors, stalled (its latency is a fixed delay: see Findings), Rails' connection " \
      "pool exhausted (more threads than connections: see Findings) on server; runner-up b 900 good req/s, p99 2.0ms; not distinguishable: " \
      "a and b here: b has 1 round(s), a 1; the test needs 3 each", api.because
    assert_equal "PSS peak 50.0 MiB (RSS 100.0 MiB) at 1,000 good req/s, stalled (its latency is a fixed delay: see Findings) on server with " \
      "1 worker, among the servers within 50% of the best goodput (1,000 req/s); runner-up b 100.0 MiB with 3 workers at 900 req/s: 2.00x the memory", memory.because
    assert_equal "a", memory.pick
  end

  def test_a_servers_best_restart_is_the_serving_one_then_the_fewest_failures
    r = resilience(restart("a", "hot", failed: 3), restart("a", "phased", failed: 0, serving: false), restart("a", "usr2", failed: 5))
    assert_equal "hot restart: 3 failed requests, longest 50.0ms, dip 0%", r.because
    r = resilience(restart("a", "hot", failed: 1, longest: 10_000), restart("a", "usr2", failed: 1, longest: 90_000))
    assert_equal "hot restart: 1 failed requests, longest 10.0ms, dip 0%", r.because
  end

  # Memory is weighed among throughput rows only, never an erroneous one.
  def test_memory_weighs_serving_throughput_rows_only
    crash = probed("tiny", 1000, pss: 1_024).merge("scenario" => "crash", "variant" => "kill")
    bad = probed("leaky", 1000, errors: 50, pss: 2_048)
    doc = Arena::Results::Document.from_h({"measurements" => [probed("a", 1000, pss: 51_200), crash, bad]})
    memory = Arena::Report::Recommend.new(doc).call[3]
    assert_equal "a", memory.pick
    none = Arena::Report::Recommend.new(Arena::Results::Document.from_h({"measurements" => [probed("a", 1000)]})).call[3]
    assert_equal [nil, "not measured in this run (the probes sample PSS in every scenario)", "arena run"], [none.pick, none.because, none.run]
  end

  # Issue 33's audit: two servers with the same PSS peak; the pick went to
  # whichever row came first.
  def test_an_exact_memory_tie_is_said_as_a_tie
    memory = ->(order) { Arena::Report::Recommend.new(Arena::Results::Document.from_h({"measurements" => order})).call[3] }
    a = probed("a", 1000, pss: 51_200)
    b = probed("b", 990, pss: 51_200)
    [[a, b], [b, a]].each do |order|
      tie = memory.call(order)
      assert_nil tie.pick, tie.because
      assert_match(/\Aa tie: [ab] and [ab] both peaked at PSS 50\.0 MiB on /, tie.because)
    end
    assert_equal "b", memory.call([a, probed("b", 990, pss: 51_199)]).pick
  end

  # The repeat is asked when the top two lack 3 runs, not for a third row.
  def test_repeats_are_asked_for_the_top_two_only
    three = ->(server, base) { [base, base + 10, base - 10].map { |v| row(server, v) } }
    assert_nil api(three.call("a", 1000), three.call("b", 800), row("c", 10)).run
    assert_equal "arena run --rounds 3", api(three.call("a", 1000), row("b", 800)).run
    assert_nil api(row("a", 1000)).run, "one server: nothing to tell apart"
  end

  # A user's app: its own paths answer the API use case, the built-in
  # workload names are never suggested (they would not run there).
  def app_doc(*measurements, workloads: ["/users", "/health"])
    Arena::Results::Document.from_h({"plan" => {"app" => {"builtin" => false, "rackup" => "/srv/shop/config.ru"},
                                                "workloads" => workloads.map { |w| {"path" => w} }},
                                     "measurements" => measurements.flatten})
  end

  def app_row(server, rps, workload:, scenario: "steady", errors: 0)
    row(server, rps).merge("workload" => workload, "scenario" => scenario).tap do |m|
      m["load"] = m["load"].merge("errors" => {"total" => errors}, "requests" => {"completed" => 1000})
    end
  end

  def test_on_a_users_app_its_own_paths_answer_the_api_use_case
    three = ->(server, base, workload) { [base, base + 10, base - 10].each_with_index.map { |v, i| app_row(server, v, workload: workload).merge("repeat" => i + 1) } }
    api, io, cpu = Arena::Report::Recommend.new(app_doc(three.call("a", 1000, "/users"), three.call("b", 800, "/users"),
      three.call("b", 5000, "/health"))).call
    assert_equal "a", api.pick, "the first of the app's paths with steady rows: /users"
    assert_equal "1,000 good req/s (990–1,010 over 3 runs), p99 1.0ms on /users; runner-up b 800 good req/s (790–810 over 3 runs), p99 1.0ms; " \
      "pick: goodput: a is +25.0% against b (95% interval +24.2% to +25.8%; paired t on log ratios, 3 rounds, p=4.18e-05 < 0.05)", api.because
    assert_nil api.run
    [[io, "waiting on I/O or long requests", "sleep, stream"], [cpu, "CPU-bound work", "pi, trial, primes"]].each do |r, use_case, names|
      assert_equal [use_case, nil, nil], [r.use_case, r.pick, r.run]
      assert_equal "not measured: judged on the built-in app's #{names}; name a path of your app that does this with --workload", r.because
    end
    # Two runs each on the app: the repeat it asks for keeps the app and its paths.
    two = Arena::Report::Recommend.new(app_doc(app_row("a", 1000, workload: "/users"), app_row("a", 990, workload: "/users"),
      app_row("b", 800, workload: "/users"))).call.first
    assert_equal "arena run --app /srv/shop --workload /users --workload /health --rounds 3", two.run
  end

  def test_on_a_users_app_without_steady_rows_it_says_what_to_run_there
    # Measured on the app's path, but only with errors over 1%: run it again in steady.
    bad = Arena::Report::Recommend.new(app_doc(app_row("a", 1000, workload: "/users", errors: 50))).call.first
    assert_equal [nil, "not measured in this run", "arena run --app /srv/shop --workload /users --scenario steady"], [bad.pick, bad.because, bad.run]
    # Measured in another scenario only.
    other = Arena::Report::Recommend.new(app_doc(app_row("a", 1000, workload: "/health", scenario: "slow-clients"))).call.first
    assert_equal "arena run --app /srv/shop --workload /health --scenario steady", other.run
    # Nothing measured at all: the built-in names it is judged on, and what to do.
    none = Arena::Report::Recommend.new(app_doc).call.first
    assert_equal [nil, nil], [none.pick, none.run]
    assert_equal "not measured: judged on the built-in app's server, json, ip; name a path of your app that does this with --workload", none.because
    # The built-in app: the suggestion names its own workload.
    builtin = Arena::Report::Recommend.new(Arena::Results::Document.from_h({"measurements" => []})).call
    assert_equal ["arena run --workload server", "arena run --workload sleep --scenario steady,rate", "arena run --workload pi"], builtin.first(3).map(&:run)
    assert_equal ["not measured in this run"] * 3, builtin.first(3).map(&:because)
  end

  # The built-in app: the API use case is judged on server, json or ip
  # only, never on another workload the run measured.
  def test_the_api_use_case_is_not_judged_on_other_builtin_workloads
    api = Arena::Report::Recommend.new(Arena::Results::Document.from_h({"measurements" => [1000, 1010, 990].map { |v| row("a", v).merge("workload" => "pi") }})).call.first
    assert_equal [nil, "not measured in this run", "arena run --workload server"], [api.pick, api.because, api.run]
  end

  # A path that contains another's name is not that path (the workload
  # lists are matched name for name, not as substrings).
  def test_app_paths_are_matched_whole
    three = ->(server, base, workload, errors: 0) { [base, base + 10, base - 10].map { |v| app_row(server, v, workload: workload, errors: errors) } }
    api = Arena::Report::Recommend.new(app_doc(three.call("a", 1000, "/u/1", errors: 50), three.call("b", 800, "/u"), three.call("c", 700, "/u"),
      workloads: ["/u/1", "/u"])).call.first
    assert_equal "b", api.pick
    assert_match(/ on \/u; runner-up c /, api.because)
    # /u/1 measured clean: judged on /u/1 alone, /u's servers are not its runners-up.
    api = Arena::Report::Recommend.new(app_doc(three.call("a", 1000, "/u/1"), three.call("b", 800, "/u"), workloads: ["/u/1", "/u"])).call.first
    assert_equal ["a", "1,000 good req/s (990–1,010 over 3 runs), p99 1.0ms on /u/1; pick: the only server measured"], [api.pick, api.because]
  end

  # Each server's best row: its keep-alive row at 1,000 beats its own close row at 500.
  def test_each_server_counts_with_its_best_row
    a = api([500, 510, 490].map { |v| row("a", v).merge("variant" => "close") }, [1000, 1010, 990].map { |v| row("a", v) },
      [700, 710, 690].map { |v| row("a", v).merge("variant" => "pipelined") }, [800, 810, 790].map { |v| row("b", v) })
    assert_equal "a", a.pick
    assert a.because.start_with?("1,000 good req/s (990–1,010 over 3 runs)"), a.because
  end

  # The pick where goodput ties is the lower p99: its figures come first,
  # though the other served a little more.
  def test_the_figures_cited_first_are_the_picks
    a = api([1000, 1005, 995].map { |v| row("a", v, p99: 40_000) }, [990, 995, 992].map { |v| row("b", v, p99: 6_000) })
    assert_equal "b", a.pick
    assert a.because.start_with?("992 good req/s (990–995 over 3 runs), p99 6.0ms on server; runner-up a 1,000 good req/s"), a.because
  end

  # Memory is weighed on the workload with the most servers measured (not
  # the most rows), among that workload's rows only, each server at its best
  # goodput; a server at exactly half the best goodput still serves.
  def test_memory_is_weighed_on_the_workload_most_servers_ran
    json = ->(variant) { probed("tiny", 1000, pss: 1_024).merge("workload" => "json", "variant" => variant) }
    doc = {"measurements" => [*%w[keep-alive close pipelined one two].map(&json),
      probed("a", 400, pss: 40_960), probed("a", 1000, pss: 51_200).merge("variant" => "close"),
      probed("a", 300, pss: 30_000).merge("variant" => "pipelined"), probed("b", 2000, pss: 61_440),
      probed("c", 1000, pss: 45_000)]}
    memory = Arena::Report::Recommend.new(Arena::Results::Document.from_h(doc)).call[3]
    assert_equal "c", memory.pick
    assert_equal "PSS peak 43.9 MiB (RSS 87.9 MiB) at 1,000 good req/s on server, among the servers within 50% of the best goodput " \
      "(2,000 req/s); runner-up a 50.0 MiB at 1,000 req/s: 1.14x the memory", memory.because
  end

  def test_resilience_words_and_ranks_at_their_edges
    # No restart scenario in the run: no "no zero-downtime restart".
    r = resilience(crash("b"), crash("c", errors: 2))
    assert_equal "worker killed: replaced, 0 errors after, back to 90% throughput in 1.0s. runner-up c: worker killed: replaced, " \
      "2 errors after, back to 90% throughput in 1.0s", r.because
    # A worker lost for good ranks last even when the throughput came back.
    assert_equal "c", resilience(crash("b", outcome: "lost"), crash("c", errors: 9)).pick
    # Failed requests count the crash's errors and the best restart's failures together.
    assert_equal "b", resilience(crash("a"), restart("a", "hot", failed: 5), crash("b", errors: 1), restart("b", "hot")).pick
    # A restart's fewest failures outrank its shorter wait; figures the file lacks count as 0.
    r = resilience(restart("a", "hot", failed: 2, longest: 10_000), restart("a", "usr2", failed: nil, longest: nil))
    assert_equal "usr2 restart: 0 failed requests, longest -, dip 0%", r.because
    r = resilience(restart("a", "hot", failed: 2, longest: 10_000), restart("a", "usr2", failed: 0, longest: 90_000))
    assert_equal "usr2 restart: 0 failed requests, longest 90.0ms, dip 0%", r.because
    assert_includes resilience(crash("a", errors: nil)).because, "worker killed: replaced, 0 errors after,"
    # Figures an older file lacks, where servers tie before them, count as 0 rather than stop the ranking.
    assert_equal "a", resilience(crash("b", recovery: 1.0), crash("a", recovery: nil)).pick
    assert_equal "a", resilience(restart("b", "hot", longest: 10_000), restart("a", "hot", longest: nil)).pick
    assert_equal "hot restart: 1 failed requests, longest -, dip 0%",
      resilience(restart("a", "usr2", failed: 1, longest: 10_000), restart("a", "hot", failed: 1, longest: nil)).because
  end

  def test_slow_clients_ranks_the_better_share_first_whatever_the_order
    run = ->(server, ratio) do
      {"server" => server, "workload" => "server", "scenario" => "slow-clients", "variant" => "with 4 slow headers",
       "load" => {"throughput_rps" => 100 * ratio, "requests" => {"completed" => 100}, "latency_us" => {"count" => 100}},
       "extra" => {"rps_ratio" => ratio, "rps_alone" => 100.0}}
    end
    slow = Arena::Report::Recommend.new(Arena::Results::Document.from_h({"measurements" => [run.call("unicorn", 0.1), run.call("puma", 0.9)]})).call.last
    assert_equal ["puma", "kept 90% of its goodput beside 4 slow headers clients (100 → 90.0 req/s); runner-up unicorn kept 10%"], [slow.pick, slow.because]
  end
end
