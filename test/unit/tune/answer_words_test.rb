# frozen_string_literal: true

require "test_helper"
require "support/confirmation_figures"

module Arena
  # The answer's words on hand-made values of known truth: a Confirmed built
  # field by field (its differences written, not computed), so each branch
  # of the gain, keep, margin, absolute and speed lines is read whole.
  class TuneAnswerWordsTest < Minitest::Test
    cover "Arena::Tune::AnswerWords*"
    include ConfirmationFigures

    W = Tune::AnswerWords
    # A stand-in adapter for measured_on and processes: its settings and threads only.
    Stub = Struct.new(:settings, :request_threads)
    # A server whose one tunable is workers.
    Bare = Struct.new(:settings, :key) do
      def self.tunables = {"workers" => nil}
    end

    def side(role, key, settings, failed: nil)
      Side.new(role: role, adapter: adapter(key, settings), installation: nil, rps: {}, p99_ms: {}, pss_kb: {}, failed: failed)
    end

    def iodine = side("answer", "iodine", {"workers" => 1, "threads" => 4})

    def falcon = side("runner-up", "falcon", {"count" => 1})

    def puma(failed: nil) = side("baseline", "puma", {"threads" => 3, "workers" => 0}, failed: failed)

    YOURS = "your config/puma.rb (puma, 3 threads, 1 process)"

    def unmeasured(n) = Difference.new(n: n, significant: false, equivalent: false)

    def confirmed(**fields) = Tune::Confirmed.new(band_pct: 3.0, rounds: 10, **fields)

    def test_sig3_rounds_to_three_significant_figures
      assert_equal "?", W.sig3(nil)
      assert_equal "0", W.sig3(0)
      assert_equal "0", W.sig3(0.0)
      # digits 0 (100-999): rounded whole, never trimmed ("100" is not "1")
      assert_equal %w[100 120 999 123], [100.0, 120.4, 999.4, 123.456].map { |x| W.sig3(x) }
      assert_equal %w[1000 1230 12300 1240], [1000.0, 1234.5, 12_345.6, 1235.1].map { |x| W.sig3(x) }
      assert_equal %w[12.3 10 1 1.5 9.99 0.5 0.012], [12.34, 10.0, 1.0, 1.5, 9.99, 0.5, 0.012].map { |x| W.sig3(x) }
      # negatives: the magnitude decides the digits
      assert_equal %w[-12.3 -0.0123 -1230 -1.5], [-12.34, -0.012345, -1234.5, -1.5].map { |x| W.sig3(x) }
      # the zeros are kept with trim: false
      assert_equal %w[1.00 1.30 0.950 10.0 100 0.0120], [1.0, 1.3, 0.95, 10.0, 100.0, 0.012].map { |x| W.sig3(x, trim: false) }
      assert_equal "1.3", W.sig3(1.3, trim: true)
    end

    def test_two_decimals_under_ten_and_three_figures_from_ten
      assert_equal %w[1.31 0.90 9.99 10 12.3 -1.50 -12.3 0.00], [1.3149, 0.9, 9.99, 10.0, 12.34, -1.5, -12.34, 0.001].map { |x| W.two(x) }
      assert_equal %w[9.50 9.00], [9.5, 9.0].map { |x| W.two(x) }, "under ten: two decimals, never trimmed"
      assert_equal "1.31× (1.24–1.38)", W.ratio(1.3149, [1.2412, 1.3801])
    end

    def test_pct_signs_the_change
      assert_equal %w[+31% -10% +0% +5.5% -0.5%], [1.31, 0.9, 1.0, 1.055, 0.995].map { |x| W.pct(x) }
    end

    def test_settings_and_config
      assert_equal "its defaults", W.settings(nil)
      assert_equal "its defaults", W.settings({})
      assert_equal "count=1 model=forked", W.settings({"count" => 1, "model" => "forked"})
      assert_equal "falcon count=1", W.config(adapter("falcon", {"count" => 1}))
      assert_equal "iodine workers=1 threads=4", W.config(adapter("iodine", {"threads" => 4, "workers" => 1}))
      assert_equal "puma workers=0 threads=3", W.config(adapter("puma", {"threads" => 3, "workers" => 0}))
      assert_equal "bare", W.config(Bare.new({"model" => "forked"}, "bare")), "no tuned setting: the server's name"
      assert_equal "bare workers=2", W.config(Bare.new({"model" => "forked", "workers" => 2}, "bare"))
    end

    def test_paired_rounds_counts_the_pairs
      assert_equal "0 paired rounds", W.paired_rounds(nil)
      assert_equal "0 paired rounds", W.paired_rounds(unmeasured(nil))
      assert_equal "1 paired round", W.paired_rounds(unmeasured(1))
      assert_equal "2 paired rounds", W.paired_rounds(unmeasured(2))
    end

    def test_gain_when_the_baseline_did_not_run
      assert_equal "#{YOURS}: not measured (it did not start)", W.gain(confirmed(pick: iodine, baseline: nil), baseline)
      failed = puma(failed: "exited with status 1")
      assert_equal "#{YOURS}: out of the rounds:\n  exited with status 1", W.gain(confirmed(pick: iodine, baseline: failed), baseline)
    end

    def test_gain_when_the_baseline_is_the_pick
      base = puma
      assert_equal "keep what you run: #{YOURS} is the best config found", W.gain(confirmed(pick: base, baseline: base, keep: true), baseline)
      # The same config read as another side (equal, not the same object): compared, not "the best found".
      assert_equal "keep what you run: #{YOURS}; the rounds could not compare it (0 paired rounds)",
        W.gain(confirmed(pick: puma, baseline: base, keep: true), baseline)
    end

    def test_gain_without_a_ratio
      c = confirmed(pick: iodine, baseline: puma, gain: unmeasured(2), keep: true)
      assert_equal "keep what you run: #{YOURS}; the rounds could not compare it (2 paired rounds)", W.gain(c, baseline)
      c = confirmed(pick: iodine, baseline: puma, gain: nil, keep: false)
      assert_equal "keep what you run: #{YOURS}; the rounds could not compare it (0 paired rounds)", W.gain(c, baseline)
    end

    def test_gain_worth_the_change
      c = confirmed(pick: iodine, baseline: puma, gain: paired(31.04, 24.12, 38.4), keep: false)
      assert_equal "+31% over #{YOURS}: 1.31× (1.24–1.38)", W.gain(c, baseline)
    end

    def test_stay_each_branch
      assert_nil W.stay(confirmed(pick: iodine, baseline: puma), baseline), "not searched: no line"
      base = puma
      assert_equal "stay on puma: your config is already the best puma config found", W.stay(confirmed(pick: iodine, baseline: base, stay: base), baseline)
      t5 = side("stay", "puma", {"threads" => 5, "workers" => 1})
      ahead = confirmed(pick: iodine, baseline: base, stay: t5, stay_gain: paired(6.0, 2.0, 10.0))
      assert_equal "stay on puma: workers=1 threads=5: 1.06× (1.02–1.10) over your config, ahead", W.stay(ahead, baseline)
      same = confirmed(pick: iodine, baseline: base, stay: t5, stay_gain: paired(1.0, -1.0, 2.0, significant: false, equivalent: true))
      assert_equal "stay on puma: workers=1 threads=5: 1.01× (0.99–1.02) over your config, equivalent within ±3%", W.stay(same, baseline)
      unclear = confirmed(pick: iodine, baseline: base, stay: t5, stay_gain: paired(4.0, -2.0, 10.0, significant: false))
      assert_equal "stay on puma: workers=1 threads=5: 1.04× (0.98–1.10) over your config, not clear of it", W.stay(unclear, baseline)
      # Significantly behind yours: never "not clear of it" (Redmine read 0.84× (0.74–0.96) so).
      behind = confirmed(pick: iodine, baseline: base, stay: t5, stay_gain: paired(-16.0, -26.0, -4.0))
      assert_equal "stay on puma: workers=1 threads=5: 0.84× (0.74–0.96) over your config, behind", W.stay(behind, baseline)
      assert_equal "stay on puma: workers=1 threads=5: not compared with your config (2 paired rounds)",
        W.stay(confirmed(pick: iodine, baseline: base, stay: t5, stay_gain: unmeasured(2)), baseline)
      dead = side("stay", "puma", {"threads" => 5, "workers" => 1}, failed: "exited with status 1")
      assert_equal "stay on puma: workers=1 threads=5: out of the rounds:\n  exited with status 1",
        W.stay(confirmed(pick: iodine, baseline: base, stay: dead), baseline)
    end

    def test_gain_kept_says_why
      c = confirmed(pick: iodine, baseline: puma, gain: paired(1.0, -1.0, 2.0, significant: false, equivalent: true), keep: true)
      assert_equal "keep what you run: #{YOURS}; iodine workers=1 threads=4 reads 1.01× (0.99–1.02) of it, equivalent within ±3%",
        W.gain(c, baseline)
    end

    def test_keep_reason_each_branch
      best = "iodine workers=1 threads=4"
      c = confirmed(pick: iodine, gain: unmeasured(1), keep: true)
      assert_equal "#{best}: the rounds could not compare it (1 paired round)", W.keep_reason(c)
      c = confirmed(pick: iodine, gain: paired(1.0, -1.0, 2.0, equivalent: true), keep: true, band_pct: 2.5)
      assert_equal "#{best} reads 1.01× (0.99–1.02) of it, equivalent within ±2.5%", W.keep_reason(c)
      # The baseline significantly ahead: said as the baseline's lead, its interval turned over.
      c = confirmed(pick: iodine, gain: paired(-20.0, -30.0, -10.0), keep: true)
      assert_equal "it serves 1.25× (1.11–1.43) the goodput of #{best}", W.keep_reason(c)
      # Behind, not significantly: not clear of it.
      c = confirmed(pick: iodine, gain: paired(-5.0, -12.0, 3.0, significant: false), keep: true)
      assert_equal "#{best} reads 0.95× (0.88–1.03) of it, not clear of it", W.keep_reason(c)
      # Level and significant (not ahead): not clear of it, never "it serves 1.00×".
      c = confirmed(pick: iodine, gain: paired(0.0, -0.8, 0.8), keep: true)
      assert_equal "#{best} reads 1.00× (0.99–1.01) of it, not clear of it", W.keep_reason(c)
      # Ahead, not significant.
      c = confirmed(pick: iodine, gain: paired(8.0, -1.0, 17.0, significant: false), keep: true)
      assert_equal "#{best} reads 1.08× (0.99–1.17) of it, not clear of it", W.keep_reason(c)
    end

    def test_margin_each_word
      who = "falcon count=1"
      assert_equal "the only config confirmed (4 rounds)", W.margin(confirmed(pick: iodine, other: nil, rounds: 4))
      assert_equal "over #{who}: not compared (1 paired round)", W.margin(confirmed(pick: iodine, other: falcon, margin: unmeasured(1)))
      assert_equal "over #{who}: not compared (0 paired rounds)", W.margin(confirmed(pick: iodine, other: falcon, margin: nil))
      ahead = paired(5.0, 2.0, 8.0)
      pick = Verdicts::Verdict.of("pick", "goodput: ...")
      assert_equal "+5% over #{who}: 1.05× (1.02–1.08), ahead (10 rounds)",
        W.margin(confirmed(pick: iodine, other: falcon, margin: ahead, verdict: pick))
      level = paired(0.4, -1.0, 1.8, significant: false, equivalent: true)
      [["lower memory (pss: ...)", "picked on memory"], ["lower p99 (p99: ...)", "picked on p99"], ["only one", "picked on goodput"]].each do |reason, word|
        c = confirmed(pick: iodine, other: falcon, margin: level, verdict: Verdicts::Verdict.of("pick", reason), rounds: 9)
        assert_equal "+0.4% over #{who}: 1.00× (0.99–1.02), #{word} (9 rounds)", W.margin(c), reason.inspect
      end
      c = confirmed(pick: iodine, other: falcon, margin: level, verdict: Verdicts::Verdict.of("equivalent", "..."), band_pct: 2.0)
      assert_equal "+0.4% over #{who}: 1.00× (0.99–1.02), equivalent within ±2% (10 rounds)", W.margin(c)
      unclear = paired(2.0, -3.0, 7.0, significant: false)
      c = confirmed(pick: iodine, other: falcon, margin: unclear, verdict: Verdicts::Verdict.of("not distinguishable", "..."))
      assert_equal "+2% over #{who}: 1.02× (0.97–1.07), not distinguishable (10 rounds)", W.margin(c)
      # More goodput, and the other answers faster: a trade-off (Redmine's read "not distinguishable" at 1.25× (1.09–1.42)).
      more = paired(24.6, 9.1, 42.3)
      c = confirmed(pick: iodine, other: falcon, margin: more, verdict: Verdicts::Verdict.of("trade-off", "..."), rounds: 6)
      assert_equal "+24.6% over #{who}: 1.25× (1.09–1.42), a trade-off: #{who} answers faster (p99) (6 rounds)", W.margin(c)
      c = confirmed(pick: iodine, other: falcon, margin: paired(-10.0, -15.0, -5.0), verdict: Verdicts::Verdict.of("trade-off", "..."))
      assert_match(/, a trade-off: it answers faster \(p99\) \(10 rounds\)\z/, W.margin(c))
      c = confirmed(pick: iodine, other: falcon, margin: unclear, verdict: nil)
      assert_equal "+2% over #{who}: 1.02× (0.97–1.07), not distinguishable (10 rounds)", W.margin(c)
    end

    def test_measured_on_each_part
      two_workers = Stub.new({"workers" => 2}, 1)
      assert_equal "on 2 of 4 cores, 2 GiB: 1 process per core, 1 thread each",
        W.measured_on(two_workers, server_cores: 2, cores: 4, memory_kb: 2 * 1024**2)
      four = Stub.new({"workers" => 4}, nil)
      assert_equal "on 2 of 2 cores: 2 processes per core", W.measured_on(four, server_cores: 2, cores: 2, memory_kb: nil)
      one = Stub.new({}, 8)
      assert_equal "on 1 of 1 core, 0.5 GiB: 1 process per core, 8 threads each (not measured past 1 core)",
        W.measured_on(one, server_cores: 1, cores: 1, memory_kb: 512 * 1024)
      three = Stub.new({"workers" => 3}, 2)
      assert_equal "on 2 of 3 cores: 1.5 processes per core, 2 threads each", W.measured_on(three, server_cores: 2, cores: 3, memory_kb: nil)
      single = Stub.new({"workers" => 1}, nil)
      assert_equal "on 4 of 8 cores: 0.25 processes per core", W.measured_on(single, server_cores: 4, cores: 8, memory_kb: nil)
    end

    def test_processes_reads_each_servers_setting
      assert_equal [2, 3, 4, 5, 6, 1, 1, 7], [{"workers" => 2}, {"count" => 3}, {"processes" => 4}, {"pool" => 5}, {"servers" => 6},
        {}, {"workers" => 0}, {"workers" => "7"}].map { |s| W.processes(Stub.new(s, nil)) }
      # The first that is set, in this order.
      assert_equal 2, W.processes(Stub.new({"servers" => 9, "pool" => 8, "processes" => 7, "count" => 6, "workers" => 2}, nil))
      assert_equal 6, W.processes(Stub.new({"servers" => 9, "pool" => 8, "processes" => 7, "count" => 6}, nil))
      assert_equal 7, W.processes(Stub.new({"servers" => 9, "pool" => 8, "processes" => 7}, nil))
      assert_equal 8, W.processes(Stub.new({"servers" => 9, "pool" => 8}, nil))
      assert_equal 1, W.processes(Stub.new({"workers" => -2}, nil))
      # A setting read from a config file that is not a number (an ENV lookup): one process, not an error.
      assert_equal [1, 3], [{"workers" => "auto"}, {"workers" => "3 "}].map { |s| W.processes(Stub.new(s, nil)) }
    end

    def test_absolute_figures
      iv = Stats::Interval.new(median: 1234.5, low: 1200.2, high: 1262.0)
      assert_equal "1230 req/s (1200–1260) closed-loop, p99 12.3 ms, PSS 100 MiB",
        W.absolute(confirmed(rps: iv, p99_ms: 12.34, pss_kb: 102_400))
      assert_equal "1230 req/s (1200–1260) closed-loop", W.absolute(confirmed(rps: iv, p99_ms: nil, pss_kb: nil))
      assert_equal "1230 req/s closed-loop, PSS 1.5 MiB",
        W.absolute(confirmed(rps: Stats::Interval.new(median: 1234.5, low: nil, high: nil), pss_kb: 1536))
      assert_equal "1230 req/s closed-loop, p99 8 ms",
        W.absolute(confirmed(rps: Stats::Interval.new(median: 1234.5, low: 1200.0, high: nil), p99_ms: 8.0))
      assert_equal "1230 req/s closed-loop", W.absolute(confirmed(rps: Stats::Interval.new(median: 1234.5, low: nil, high: 1262.0)))
      assert_equal "? req/s closed-loop", W.absolute(confirmed(rps: nil))
    end

    def test_speed_keeps_the_zeros
      assert_equal "measured at 0.950–1.00× the machine's median speed", W.speed(confirmed(speed_range: [0.95, 1.0]))
      assert_equal "measured at 0.954–1.02× the machine's median speed", W.speed(confirmed(speed_range: [0.9543, 1.0213]))
      assert_equal "measured at 0.946× the machine's median speed", W.speed(confirmed(speed_range: [0.946, 0.946])), "one round: no range"
    end

    def test_fit_cuts_past_the_width_but_never_a_path
      assert_equal "a" * 100, W.fit("a" * 100)
      assert_equal "#{"a" * 99}…", W.fit("a" * 101)
      assert_equal 100, W.fit("b" * 150).size
      assert_equal "abc…", W.fit("abcdef", width: 4)
      assert_equal "abcd", W.fit("abcd", width: 4)
      assert_equal "short", W.fit("short"), "under the width: whole"
      assert_equal "ab", W.fit("ab", width: 4)
      path = "config file: /#{"d/" * 60}puma.rb"
      assert_equal path, W.fit(path)
      results = "  results: /#{"r/" * 60}"
      assert_equal results, W.fit(results)
      relative = "config file: #{"d/" * 60}"
      assert_equal "#{relative[0, 99]}…", W.fit(relative)
      quoted = "see config file: /#{"d/" * 60}"
      assert_equal "#{quoted[0, 99]}…", W.fit(quoted)
    end
  end
end
