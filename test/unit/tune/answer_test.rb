# frozen_string_literal: true

require "test_helper"
require "arena"
require "arena/tune"

module Arena
  # The answer from head-to-head figures of known truth: who, by how much
  # with its interval, the tie broken by memory, what would change it, and
  # the same words for the terminal (last) and the report (first).
  class TuneAnswerTest < Minitest::Test
    cover "Arena::Tune::Answer*"

    def entry(key, rates, pss_mib:, p99_ms:, settings: {}, failed: nil, score: nil)
      adapter = Servers.fetch(key).new(settings: settings, machine: Plan::Machine.new(cores: 2))
      candidate = Tune::Candidate.new(settings: settings, sustained_rps: score || rates.sum / rates.size, pss_kb: pss_mib && pss_mib * 1024,
        p99_ms: p99_ms, status: "ok", rates: [1.0])
      Tune::HeadToHead::Entry.new(key: key, adapter: adapter, candidate: candidate, rates: rates, failed: failed)
    end

    FILES = {"puma" => {path: "/r/tune/puma/puma.rb", command: %w[bundle exec puma -C puma.rb config.ru]},
             "falcon" => {path: "/r/tune/falcon/falcon.rb", command: %w[bundle exec falcon host falcon.rb]}}.freeze

    # The answer after 8 confirmation rounds of puma workers=2 threads=4 (the
    # answer), falcon count=2 (the runner-up) and the baseline (your
    # config/puma.rb: 3 threads) at the goodput levels given, sharing a drift,
    # each with a wobble of its own that alternates round by round.
    def confirmed_answer(provisional, answer:, runner_up:, baseline:, wobble:, stay: nil, round_s: nil, dir: nil, against: 1, baseline_failed: nil)
      machine = Plan::Machine.new(cores: 2)
      # against: -1 puts the answer's wobble against the others' (their ratios wobble twice as much)
      side = lambda do |role, key, settings, level|
        sign = (role == "answer") ? against : 1
        Tune::Confirmation::Side.new(role: role, adapter: Servers.fetch(key).new(settings: settings, machine: machine), installation: nil,
          rps: (1..8).to_h { |n| [n, level * (1 + 0.1 * Math.sin(n)) * (1 + sign * wobble * (-1)**n)] },
          p99_ms: (1..8).to_h { |n| [n, 9.0] }, pss_kb: (1..8).to_h { |n| [n, 300 * 1024] })
      end
      sides = [side.call("answer", "puma", {"workers" => 2, "threads" => 4}, answer), side.call("runner-up", "falcon", {"count" => 2}, runner_up),
        side.call("baseline", "puma", {"threads" => 3, "workers" => 0}, baseline)]
      sides.last.failed = baseline_failed
      rounds = (1..8).map { |n| Tune::Confirmation::Round.new(number: n, order: sides.map(&:key), speeds: {}, seconds: round_s) }
      result = Tune::Confirmation::Result.new(sides: sides, rounds: rounds, flagged: [], median_ms: nil, stopped: "precise")
      confirmed = Tune::Confirmed.decide(result, baseline_key: sides.last.key, stay_key: stay && sides.find { |x| x.role == stay }.key)
      found = Plan::Baseline::Found.new(server: "puma", settings: {"threads" => 3, "workers" => 0}, source: "config/puma.rb", notes: [])
      Tune::Answer.confirm(provisional, confirmed: confirmed, baseline: found, files: FILES, versions: {"puma" => "6.4.2"}, gems: {},
        measured_on: "on 1 of 2 cores", dir: dir)
    end

    # Your config out of the rounds: why takes a line of its own under the
    # answer, whole, not cut at 100 columns.
    def test_your_config_out_of_the_rounds_says_why_on_a_line_of_its_own
      drift = [1.0, 0.8, 1.2, 0.9, 1.1]
      provisional = decide([entry("falcon", drift.map { |d| 100 * d }, pss_mib: 200, p99_ms: 8.0, settings: {"count" => 2}),
        entry("puma", drift.map { |d| 110 * d }, pss_mib: 400, p99_ms: 12.0, settings: {"workers" => 2, "threads" => 4})])
      why = "16 of 61 requests failed (16 timeout) in confirmation round 2, over the 1% limit"
      lines = confirmed_answer(provisional, answer: 1300.0, runner_up: 1000.0, baseline: 900.0, wobble: 0.01,
        baseline_failed: why).lines(brief: true)
      at = lines.index { |l| l.end_with?(": out of the rounds:") }
      assert at, lines.join("\n")
      assert_match(/\A  your config\/puma.rb .*: out of the rounds:\z/, lines[at])
      assert_equal "    #{why}", lines[at + 1]
    end

    # An interval wider than ±5% says what more rounds would buy, and the
    # command that buys them; one within ±5% does not.
    def test_a_wide_interval_says_what_more_time_buys
      drift = [1.0, 0.8, 1.2, 0.9, 1.1]
      provisional = decide([entry("falcon", drift.map { |d| 100 * d }, pss_mib: 200, p99_ms: 8.0, settings: {"count" => 2}),
        entry("puma", drift.map { |d| 110 * d }, pss_mib: 400, p99_ms: 12.0, settings: {"workers" => 2, "threads" => 4})])
      wide = confirmed_answer(provisional, answer: 1300.0, runner_up: 1000.0, baseline: 900.0, wobble: 0.08, round_s: 40.0, dir: "/r/t", against: -1)
      said = wide.lines.grep(/more minutes/)
      assert_equal 1, said.size
      # the log ratios alternate by ±0.16 (SD 0.171 over 8 rounds); the gain's,
      # at 1.44x, is the wider: 1.44·sinh(2.365·0.171/√8) = ±20.8%; ±5% needs
      # about 97 rounds, 89 more and a spare of 40 s: 60 minutes
      assert_equal "  ±20.8% from 8 rounds; about 60 more minutes (`arena tune --resume /r/t --max-time 3600`) " \
        "would give ±5% at this machine's spread", said.first
      assert_equal said.first.strip, wide.to_record["more_time"]
      assert_includes wide.lines(brief: true), said.first, "the command is never cut in the terminal"
      narrow = confirmed_answer(provisional, answer: 1300.0, runner_up: 1000.0, baseline: 900.0, wobble: 0.001, round_s: 40.0, dir: "/r/t", against: -1)
      assert_empty narrow.lines.grep(/more minutes|from 8 rounds/)
      assert_nil narrow.to_record["more_time"]
    end

    # The cores rounds of the answer and of your server's best config: the
    # stay config's factor under its stay line, the box's memory under the
    # answer's, and both in tune.json.
    def test_the_cores_rounds_say_the_stay_config_and_the_boxs_memory
      drift = [1.0, 0.8, 1.2, 0.9, 1.1]
      provisional = decide([entry("falcon", drift.map { |d| 100 * d }, pss_mib: 200, p99_ms: 8.0, settings: {"count" => 2}),
        entry("puma", drift.map { |d| 110 * d }, pss_mib: 400, p99_ms: 12.0, settings: {"workers" => 2, "threads" => 4})])
      answer = confirmed_answer(provisional, answer: 1300.0, runner_up: 1000.0, baseline: 900.0, wobble: 0.01, stay: "answer")
      machine = Plan::Machine.new(cores: 2)
      one = answer.confirmed.pick.adapter
      stay = Tune::Scaling::Result.new(factor: [1.8, [1.7, 1.9]], one: one, many: Servers.fetch("puma").new(settings: {"workers" => 6, "threads" => 3},
        machine: machine), cores: 2, server_cores: 1, rounds: 6, pss_kb: 700 * 1024)
      scaling = Tune::Scaling::Result.new(factor: [1.9, [1.8, 2.0]], one: one, many: Tune::Scaling.scaled(one, 2), cores: 2, server_cores: 1, rounds: 6,
        pss_kb: 600 * 1024, stay: stay)
      lines = answer.with(scaling: scaling).lines
      at = lines.index { |l| l.start_with?("  stay on puma:") }
      assert_equal "  stay on puma, on 2 cores: workers=6 threads=3: 1.80× (1.70–1.90) one core", lines[at + 1]
      assert_includes lines, "  memory on 2 cores: 4 processes, 600.0 MiB PSS (measured), within --memory 1.46 GiB"
      record = answer.with(scaling: scaling).to_record
      assert_equal [1.8, [1.7, 1.9], 700.0], record.dig("scaling", "stay").values_at("ratio", "interval", "pss_mib")
      assert_equal 600.0, record.dig("scaling", "pss_mib")
    end

    # Over 15 lines, the terminal leaves out the machine's speed, then the
    # general words on N cores, then a box's memory within its budget, then
    # the last lines; never a line that tells what to do.
    def test_the_terminals_block_leaves_out_the_spare_lines_first
      lines = ["THE ANSWER: x"] + Array.new(9) { |i| "  line #{i}" } + ["  measured at 0.98–1.02× the machine's median speed",
        "  on N cores: N× the processes, if the database keeps up (measured to 2)",
        "  memory on 2 cores: 2 processes, 250.0 MiB PSS (measured), within --memory 17.60 GiB",
        "  start: bundle exec puma", "  config file: /r/puma.rb", "  not in the answer: agoo", "  not done in time: 3"]
      assert_equal 17, lines.size
      kept = Tune::Answer.brief(lines)
      assert_equal 15, kept.size
      assert_empty kept.grep(/measured at|on N cores/)
      assert_includes kept, lines[12], "the memory line stays while the block fits"
      assert_equal lines.last(4), kept.last(4)
      assert_equal lines.first(15), Tune::Answer.brief(lines.first(15)), "a block that fits is kept whole"
      over = lines + ["  extra"]
      assert_equal over.reject { |l| l.match?(/measured at|on N cores|memory on/) }, Tune::Answer.brief(over)
    end

    def decide(entries, **kw)
      Tune::Answer.decide(entries: entries, files: FILES, versions: {"puma" => "6.4.2"}, slos: {"puma" => 120.0, "falcon" => 130.0},
        memory_mib: 1500.0, **kw)
    end

    # Puma 10% ahead in every round (drift shared): a real lead with its interval.
    def test_a_lead_beyond_the_noise
      drift = [1.0, 0.8, 1.2, 0.9, 1.1]
      own = [1.01, 0.99, 1.02, 0.985, 1.0]
      a = decide([entry("falcon", drift.zip(own).map { |d, o| 100 * d * o }, pss_mib: 200, p99_ms: 8.0, settings: {"count" => 2}),
        entry("puma", drift.map { |d| 110 * d }, pss_mib: 400, p99_ms: 12.0, settings: {"workers" => 2, "threads" => 4})])
      assert_equal ["puma", "ahead", "falcon"], [a.server, a.verdict, a.runner_up]
      assert_in_delta 1.099, a.ratio, 0.001
      assert_operator a.interval[0], :<, a.ratio
      assert_operator a.interval[1], :>, a.ratio
      rec = a.to_record
      assert_equal %w[server settings runtime version command config_file runner_up ratio interval verdict rounds significance slo_ms memory_mib changes not_done out],
        rec.keys
      assert_equal({"server" => "falcon", "settings" => {"count" => 2, "model" => "forked"}}, rec["runner_up"])
      assert_equal %w[bundle exec puma -C puma.rb config.ru], rec["command"]
      lines = a.lines
      assert_equal "THE ANSWER: puma 6.4.2 with workers=2 threads=4 preload=false, runtime default", lines[0]
      assert_includes lines, "  start: bundle exec puma -C puma.rb config.ru"
      assert_includes lines, "  config file: /r/tune/puma/puma.rb"
      assert_match(/\A  margin: \+9\.9% over falcon count=2 model=forked \(95% interval \+\d\.\d% to \+\d+\.\d%, 5 paired rounds\)\z/, lines.grep(/margin/).first)
      assert_includes lines, "  held to: p99 <= 120.0 ms, < 1% errors, PSS <= 1500.0 MiB (the memory budget)"
      assert_includes lines, "  would change it: a memory budget under 400.0 MiB would pick falcon (PSS 200.0 MiB); " \
        "a p99 SLO under 12.0 ms would pick falcon (8.0 ms at its sustained rate)"
    end

    # A server Arena's overlay added beside the app's bundle cannot be
    # deployed from the config file alone: the answer says to add its gem
    # (the Rails fixture's answer was Iodine, which its Gemfile lacks).
    def test_a_server_the_overlay_added_names_the_gem_to_add
      drift = [1.0, 0.8, 1.2, 0.9, 1.1]
      entries = [entry("falcon", drift.map { |d| 100 * d }, pss_mib: 200, p99_ms: 8.0), entry("puma", drift.map { |d| 110 * d }, pss_mib: 400, p99_ms: 12.0)]
      a = decide(entries, gems: {"puma" => ["puma", "6.4.2"], "falcon" => ["falcon", "0.51.1"]})
      assert_includes a.lines, "  Gemfile: add gem \"puma\", \"6.4.2\" (Arena ran it from its overlay beside your bundle; your Gemfile is unchanged)"
      assert_equal({"name" => "puma", "version" => "6.4.2"}, a.to_record["gem"])
      plain = decide(entries, gems: {"falcon" => ["falcon", "0.51.1"]})
      assert_empty plain.lines.grep(/Gemfile/), "puma in the app's bundle"
      assert_nil plain.to_record["gem"]
    end

    # The same figures but for noise: equivalent within ±3%, and the one with
    # less memory is the answer though its median is a shade lower.
    def test_equivalent_configs_go_to_less_memory
      a = decide([entry("puma", [100.0, 101, 99, 100, 100.5], pss_mib: 400, p99_ms: 12.0),
        entry("falcon", [99.8, 100.9, 99.1, 99.7, 100.3], pss_mib: 200, p99_ms: 8.0)])
      assert_equal ["falcon", "equivalent", "puma"], [a.server, a.verdict, a.runner_up]
      assert_match(/margin: equivalent to puma .* within ±3% .*: falcon uses less memory/, a.lines.join("\n"))
      assert_equal ["no smaller memory budget (falcon needs the least: PSS 200.0 MiB)"], a.changes
    end

    def test_a_lead_the_rounds_cannot_confirm
      a = decide([entry("puma", [110.0, 90, 120, 95, 105], pss_mib: 400, p99_ms: 12.0),
        entry("falcon", [100.0, 105, 98, 101, 99], pss_mib: 200, p99_ms: 8.0)])
      assert_equal ["puma", "not distinguishable"], [a.server, a.verdict]
      assert_match(/not distinguishable here/, a.margin_words)
    end

    def test_a_finalist_that_failed_is_out_with_its_reason_and_what_was_not_done_is_said
      a = decide([entry("puma", [100.0, 101, 99], pss_mib: 400, p99_ms: 12.0),
        entry("falcon", [100.0], pss_mib: 200, p99_ms: 8.0, failed: "did not start: [BUG] Segmentation fault")],
        not_done: ["uwsgi: not searched (no time left)"])
      assert_equal ["puma", "only", nil], [a.server, a.verdict, a.runner_up]
      assert_includes a.lines, "  not in the answer: falcon: did not start: [BUG] Segmentation fault"
      assert_equal "  not done in time: uwsgi: not searched (no time left)", a.lines.last
      assert_nil a.ratio
    end

    # Two rounds each: too few for the paired test. The leader is still the
    # answer; the margin says why it was not compared, and no ratio is made up.
    def test_too_few_rounds_to_compare
      a = Tune::Answer.decide(entries: [entry("puma", [100.0, 101], pss_mib: 400, p99_ms: 12.0), entry("falcon", [99.0, 100], pss_mib: 200, p99_ms: 8.0)])
      assert_equal ["puma", "not distinguishable", "falcon", nil, nil], [a.server, a.verdict, a.runner_up, a.ratio, a.interval]
      assert_equal "not compared head to head with falcon: not distinguishable here: 2 paired round(s) of falcon and puma; the test needs 3", a.margin_words
      assert_equal ["THE ANSWER: puma with workers=2 threads=5 preload=false, runtime default", "  sustains 101 req/s at p99 12.0 ms, PSS 400.0 MiB",
        "  margin: not compared head to head with falcon: not distinguishable here: 2 paired round(s) of falcon and puma; the test needs 3",
        "  held to: p99 <= ? ms, < 1% errors, PSS <=  MiB (the memory budget)",
        "  would change it: a memory budget under 400.0 MiB would pick falcon (PSS 200.0 MiB); a p99 SLO under 12.0 ms would pick falcon (8.0 ms at its sustained rate)"],
        a.lines
      assert_equal({"server" => "puma", "settings" => {"workers" => 2, "threads" => 5, "preload" => false}, "runtime" => "default",
                     "runner_up" => {"server" => "falcon", "settings" => {"count" => 2, "model" => "forked"}}, "verdict" => "not distinguishable",
                     "rounds" => 2, "significance" => "not distinguishable here: 2 paired round(s) of falcon and puma; the test needs 3",
                     "changes" => a.changes, "not_done" => [], "out" => {}}, a.to_record)
    end

    # The paired test runs on the rounds both ran: a finalist cut short
    # after three rounds is compared on those three.
    def test_the_rounds_both_ran
      drift = [1.0, 0.8, 1.2, 0.9]
      a = decide([entry("puma", drift.map { |d| 110 * d }, pss_mib: 400, p99_ms: 12.0),
        entry("falcon", drift.first(3).each_with_index.map { |d, i| 100 * d * (1 + 0.01 * (-1)**i) }, pss_mib: 200, p99_ms: 8.0)])
      assert_equal ["puma", "ahead", 3, 4], [a.server, a.verdict, a.difference.n, a.rounds]
      assert_match(/, 3 paired rounds\)\z/, a.margin_words)
    end

    # Ranked by the median of the head-to-head rounds; a finalist without
    # rounds by its search's score; at the same figure, less memory first.
    def test_how_finalists_rank
      no_rounds = decide([entry("puma", [], pss_mib: 200, p99_ms: 12.0, score: 90.0), entry("falcon", [], pss_mib: 400, p99_ms: 8.0, score: 95.0)])
      assert_equal ["falcon", "puma"], [no_rounds.server, no_rounds.runner_up]
      median = decide([entry("puma", [100.0, 300, 101], pss_mib: 400, p99_ms: 12.0), entry("falcon", [150.0, 150, 150], pss_mib: 200, p99_ms: 8.0)])
      assert_equal "falcon", median.server, "the median, not the mean"
      same = [100.0, 120, 90, 110]
      tie = decide([entry("puma", same, pss_mib: 400, p99_ms: 12.0), entry("falcon", same, pss_mib: 200, p99_ms: 8.0),
        entry("iodine", same.map { |r| r * 0.5 }, pss_mib: 100, p99_ms: 5.0)])
      assert_equal ["falcon", "equivalent", "puma"], [tie.server, tie.verdict, tie.runner_up]
      assert_equal "a memory budget under 200.0 MiB would pick iodine (PSS 100.0 MiB)", tie.changes.first
      drift = [1.0, 0.8, 1.2, 0.9, 1.1]
      runners = [entry("falcon", drift.map { |d| 100 * d }, pss_mib: 300, p99_ms: 8.0), entry("iodine", drift.map { |d| 100 * d }, pss_mib: 200, p99_ms: 8.0)]
      [runners, runners.reverse].each do |pair|
        lead = decide([entry("puma", drift.map { |d| 110 * d }, pss_mib: 400, p99_ms: 12.0), *pair])
        assert_equal ["puma", "iodine"], [lead.server, lead.runner_up], "of two runners-up at the same figure, the lighter"
      end
      lighter_second = decide([entry("puma", same, pss_mib: 200, p99_ms: 12.0), entry("falcon", same.map { |r| r * 0.999 }, pss_mib: 400, p99_ms: 8.0)])
      assert_equal ["puma", "equivalent", "falcon"], [lighter_second.server, lighter_second.verdict, lighter_second.runner_up]
      assert_match(/\Aequivalent to falcon count=2 model=forked within ±3% \(\+0\.1%, interval .*, 4 paired rounds\): puma uses less memory\z/,
        lighter_second.margin_words)
    end

    # What would change it: the best-ranked lighter or faster finalist, none
    # where the figures are missing, and a lone answer has no line.
    def test_what_would_change_it
      drift = [1.0, 0.8, 1.2, 0.9, 1.1]
      three = decide([entry("puma", drift.map { |d| 110 * d }, pss_mib: 400, p99_ms: 12.0),
        entry("falcon", drift.map { |d| 100 * d }, pss_mib: 300, p99_ms: 11.0), entry("iodine", drift.map { |d| 90 * d }, pss_mib: 100, p99_ms: 5.0)])
      assert_equal ["a memory budget under 400.0 MiB would pick falcon (PSS 300.0 MiB)",
        "a p99 SLO under 12.0 ms would pick falcon (11.0 ms at its sustained rate)"], three.changes
      unknown = decide([entry("puma", drift.map { |d| 110 * d }, pss_mib: nil, p99_ms: nil), entry("falcon", drift.map { |d| 100 * d }, pss_mib: 300, p99_ms: 11.0)])
      assert_equal [], unknown.changes, "no PSS of its own: nothing said of memory"
      other_unknown = decide([entry("puma", drift.map { |d| 110 * d }, pss_mib: 400, p99_ms: 12.0), entry("falcon", drift.map { |d| 100 * d }, pss_mib: nil, p99_ms: nil)])
      assert_equal ["no smaller memory budget (puma needs the least: PSS 400.0 MiB)"], other_unknown.changes
      alone = decide([entry("puma", drift, pss_mib: 400, p99_ms: 12.0)])
      assert_equal [], alone.changes
      refute alone.lines.any? { |l| l.include?("would change it") }
      assert_equal "the only server that ran head to head", alone.margin_words
      assert_equal({"server" => "puma", "settings" => {"workers" => 2, "threads" => 5, "preload" => false}, "runtime" => "default", "version" => "6.4.2",
                     "command" => %w[bundle exec puma -C puma.rb config.ru], "config_file" => "/r/tune/puma/puma.rb", "verdict" => "only", "rounds" => 5,
                     "slo_ms" => 120.0, "memory_mib" => 1500.0, "changes" => [], "not_done" => [], "out" => {}}, alone.to_record)
    end

    def test_settings_in_words
      a = decide([entry("puma", [100.0], pss_mib: 400, p99_ms: 12.0)])
      assert_equal "its defaults", a.setting_words({})
      assert_equal "its defaults", a.setting_words(nil)
      assert_equal "workers=2 threads=4", a.setting_words({"workers" => 2, "threads" => 4})
    end

    def test_no_answer
      a = decide([], out: {"agoo" => "no config qualified"})
      refute a.found?
      assert_equal ["THE ANSWER: none: no server held a rate within the SLO and the memory budget", "  not in the answer: agoo: no config qualified"], a.lines
      assert_equal({"server" => nil, "not_done" => [], "out" => {"agoo" => "no config qualified"}}, a.to_record)
      assert a.frozen?
      assert_equal [1500.0, [], 3.0], [a.memory_mib, a.changes, a.band_pct]
    end

    # The confirmation rounds settle the answer: their pick, margin and
    # rounds, never the head to head's figures (the search selected on those),
    # and the gain over the baseline leads the lines.
    def test_the_confirmation_rounds_give_the_margin_and_the_gain
      drift = [1.0, 0.8, 1.2, 0.9, 1.1]
      provisional = decide([entry("falcon", drift.map { |d| 100 * d }, pss_mib: 200, p99_ms: 8.0, settings: {"count" => 2}),
        entry("puma", drift.map { |d| 150 * d }, pss_mib: 400, p99_ms: 12.0, settings: {"workers" => 2, "threads" => 4})])
      assert_in_delta 1.5, provisional.ratio, 0.001
      a = confirmed_answer(provisional, answer: 110, runner_up: 100, baseline: 80, wobble: 0.005)
      assert_equal ["puma", 8, "ahead"], [a.server, a.rounds, a.verdict]
      assert_in_delta 1.1, a.ratio, 0.005, "the confirmation's margin, not the head to head's 1.5"
      lines = a.lines(brief: true)
      assert_equal "THE ANSWER: puma 6.4.2 with workers=2 threads=4 preload=false", lines[0]
      assert_match(/\A  \+37\.5% over your config\/puma.rb \(puma, 3 threads, 1 process\): 1\.38× \(1\.3\d–1\.\d\d\)\z/, lines[1])
      assert_match(/\A  \+10% over falcon count=2: 1\.10× .*, ahead \(8 rounds\)\z/, lines[2])
      assert_operator lines.size, :<=, 15
      assert lines.all? { |l| l.size <= 100 }, lines.join("\n")
      assert_includes a.lines, "  would change it: a memory budget under 400.0 MiB would pick falcon (PSS 200.0 MiB); " \
        "a p99 SLO under 12.0 ms would pick falcon (8.0 ms at its sustained rate)", "report.md gets the lines whole"
      long = a.with(not_done: ["thin: not looked at (no time left)", "webrick: not looked at (no time left)"], out: {"agoo" => "no config qualified " * 8})
      assert_equal ["  not in the answer: agoo (report.md says why)", "  not done in time: 2 (listed in report.md)"], long.lines(brief: true).last(2)
      assert_equal "  not done in time: thin: not looked at (no time left); webrick: not looked at (no time left)", long.lines.last
      # What would change it, on the terminal: the changes that fit whole, and how many more report.md has.
      two = ["a memory budget under 40 MiB would pick falcon (PSS 20 MiB)", "a p99 SLO under 12.0 ms would pick falcon (8.0 ms at its sustained rate)"]
      assert_includes a.with(changes: two).lines(brief: true), "  would change it: a memory budget under 40 MiB would pick falcon (PSS 20 MiB); 1 more in report.md"
      assert_includes a.with(changes: two.map { |c| c.sub("falcon", "pitchfork workers=4") }).lines(brief: true),
        "  would change it: a memory budget under 40 MiB would pick pitchfork workers=4 (PSS 20 MiB)", "the first whole rather than cut"
      assert_includes a.with(changes: two.first(1)).lines(brief: true), "  would change it: #{two[0]}"
      assert_includes a.with(changes: ["a" * 90, "b"]).lines(brief: true), "  would change it: #{"a" * 80}…", "one change too long is cut"
      rec = a.to_record
      assert_equal 8, rec["rounds"]
      assert_equal "config/puma.rb (puma, 3 threads, 1 process)", rec.dig("baseline", "config")
      assert_in_delta 1.375, rec.dig("baseline", "ratio"), 0.005
      assert_equal 2, rec.dig("baseline", "interval").size
      assert_equal false, rec["keep"]
    end

    # Two answers: the best config of the server you run (here the answer
    # itself is a Puma config), then the best server; tune.json's answer.stay.
    def test_stay_on_your_server_with_its_best_config
      drift = [1.0, 0.8, 1.2, 0.9, 1.1]
      provisional = decide([entry("falcon", drift.map { |d| 100 * d }, pss_mib: 200, p99_ms: 8.0, settings: {"count" => 2}),
        entry("puma", drift.map { |d| 150 * d }, pss_mib: 400, p99_ms: 12.0, settings: {"workers" => 2, "threads" => 4})])
      a = confirmed_answer(provisional, answer: 110, runner_up: 100, baseline: 80, wobble: 0.005, stay: "answer")
      lines = a.lines(brief: true)
      assert_match(/\A  stay on puma: workers=2 threads=4: 1\.38× \(1\.3\d–1\.\d\d\) over your config, ahead\z/, lines[2])
      rec = a.to_record
      assert_equal ["puma", false, {"workers" => 2, "threads" => 4}], rec["stay"].values_at("server", "yours", "settings").then { |x, y, z| [x, y, z.slice("workers", "threads")] }
      assert_in_delta 1.375, rec.dig("stay", "ratio"), 0.005
      mine = confirmed_answer(provisional, answer: 110, runner_up: 100, baseline: 80, wobble: 0.005, stay: "baseline")
      assert_equal "  stay on puma: your config is already the best puma config found", mine.lines(brief: true)[2]
      assert_equal true, mine.to_record.dig("stay", "yours")
      refute confirmed_answer(provisional, answer: 110, runner_up: 100, baseline: 80, wobble: 0.005).to_record.key?("stay"), "not searched"
    end

    # The standing and the app's notes stand right under the answer's head
    # and gain, on the terminal and in report.md, and in tune.json.
    def test_the_standing_and_the_notes_stand_under_the_answer
      drift = [1.0, 0.8, 1.2, 0.9, 1.1]
      provisional = decide([entry("falcon", drift.map { |d| 100 * d }, pss_mib: 200, p99_ms: 8.0, settings: {"count" => 2}),
        entry("puma", drift.map { |d| 150 * d }, pss_mib: 400, p99_ms: 12.0, settings: {"workers" => 2, "threads" => 4})])
      standing = "standing: puma 6.4.2, released 2024-01-01; newest release 8.0.2 (2026-01-01); crashed here once: x"
      a = confirmed_answer(provisional, answer: 110, runner_up: 100, baseline: 80, wobble: 0.005)
        .with(standing: standing, notes: ["jobs: Solid Queue ran inside Puma in these rounds"])
      [a.lines(brief: true), a.lines].each do |lines|
        assert_match(/\ATHE ANSWER: puma/, lines[0])
        assert_equal ["  #{standing}", "  jobs: Solid Queue ran inside Puma in these rounds"], lines[2, 2]
      end
      assert_equal [standing, ["jobs: Solid Queue ran inside Puma in these rounds"]], a.to_record.values_at("standing", "notes")
      plain = decide([entry("puma", [1.0, 2.0], pss_mib: 1, p99_ms: 1.0)]).with(standing: standing)
      assert_equal "  #{standing}", plain.lines[1]
      refute a.with(standing: nil, notes: []).to_record.key?("notes")
    end

    # Your config as good as the best other: keep it; the margin, figures
    # and start line that follow are the other config's, under a line
    # naming it (not read as your config's).
    def test_keep_what_you_run_names_the_config_whose_figures_follow
      drift = [1.0, 0.8, 1.2, 0.9, 1.1]
      provisional = decide([entry("falcon", drift.map { |d| 90 * d }, pss_mib: 200, p99_ms: 8.0, settings: {"count" => 2}),
        entry("puma", drift.map { |d| 150 * d }, pss_mib: 400, p99_ms: 12.0, settings: {"workers" => 2, "threads" => 4})])
      a = confirmed_answer(provisional, answer: 100, runner_up: 90, baseline: 100.5, wobble: 0.01)
      assert a.keep?
      lines = a.lines(brief: true)
      assert_equal "THE ANSWER: keep what you run: your config/puma.rb (puma, 3 threads, 1 process)", lines[0]
      assert_match(/\A  puma workers=2 threads=4 reads 1\.00× .* of it, equivalent within ±3%\z/, lines[1])
      assert_equal "  if you change, the best other config: puma workers=2 threads=4", lines[2]
      assert_match(/\A    \+11.1% over falcon count=2: 1.11× .*, ahead \(8 rounds\)\z/, lines[3])
      assert_match(/\A    \d+ req\/s .* closed-loop/, lines[4])
      assert_includes lines, "    start: bundle exec puma -C puma.rb config.ru"
      assert_includes lines, "    config file: /r/tune/puma/puma.rb"
      assert lines.all? { |l| l.size <= 100 }, lines.join("\n")
    end
  end
end
