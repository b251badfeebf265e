# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "arena/tune"

module Arena
  # Tune's verdict on one measured config, on values: the sustained
  # scenario's figures in, a Candidate out (ok, unsustained, over-memory),
  # then pool exhaustion and OOM kills under an envelope. Trial#call, which
  # starts the server, is exercised by test/integration/tune_test.rb.
  class TuneTrialTest < Minitest::Test
    cover "Arena::Tune::Trial*"

    MIB = 1024
    SETTINGS = {"workers" => 2, "threads" => 4}.freeze

    def figures(**kw)
      Scenarios::Sustained::Figures.new(slo_ms: 100.0, closed_max_rps: 900.5, closed_pss_mib: 180.3, closed_cpu_pct: 150.0,
        sustained_rps: 700.0, resolution: 0.05, p99_ms: 40.0, mean_ms: 7.5, error_pct: 0.2, pss_mib: 200.4, unloaded_ms: 2.5,
        service_ms: nil, **kw).freeze
    end

    def candidate(memory_kb: 300 * MIB, **kw) = Tune::Trial.candidate(figures(**kw), settings: SETTINGS, label: "puma:w=2", memory_kb: memory_kb)

    def test_a_config_that_held_a_rate_within_the_budget_is_ok_with_its_figures
      c = candidate
      assert_equal "ok", c.status
      assert_nil c.why
      assert c.frozen?
      assert_equal [SETTINGS, "puma:w=2"], [c.settings, c.label]
      assert_equal [700.0, 900.5, 40.0, 0.2, 7.5, 150.0, 0.05], [c.sustained_rps, c.closed_rps, c.p99_ms, c.error_pct, c.mean_ms, c.cpu_pct, c.resolution]
      assert_equal (200.4 * 1024).round, c.pss_kb
      assert_equal 184_627, c.closed_pss_kb # 180.3 MiB, to the kB
      assert_equal [700.0], c.rates
      assert_equal 2.5, c.service_ms, "no in-app time measured: the unloaded latency"
      assert_equal 3.25, candidate(service_ms: 3.25).service_ms
      assert_kind_of Float, candidate(sustained_rps: 700, closed_max_rps: 900).closed_rps
      assert_kind_of Float, candidate(sustained_rps: 700).sustained_rps
    end

    def test_no_rate_held_is_unsustained
      c = candidate(sustained_rps: 0.0)
      assert_equal "unsustained", c.status
      assert_equal "no open-model rate held p99 <= 100.0 ms with < 1% errors", c.why
      assert_equal "unsustained", candidate(sustained_rps: nil).status
      assert_equal [0.0], candidate(sustained_rps: nil).rates
      assert_equal "unsustained", candidate(sustained_rps: -1.0).status
      assert_equal "ok", candidate(sustained_rps: 0.5).status
    end

    def test_over_the_memory_budget_at_the_sustained_rate
      c = candidate(pss_mib: 300.5)
      assert_equal "over-memory", c.status
      assert_equal "PSS 300.5 MiB over the 300 MiB budget", c.why
      assert_equal "ok", candidate(pss_mib: 300.0).status, "at the budget is within it"
      assert_equal "ok", candidate(pss_mib: nil).status, "no PSS measured: not over"
      assert_nil candidate(pss_mib: nil).pss_kb
      assert_nil candidate(closed_pss_mib: nil).closed_pss_kb
      assert_equal "PSS 300.5 MiB over the 256 MiB budget", candidate(pss_mib: 300.5, memory_kb: 256.4 * MIB).why
      assert_equal "unsustained", candidate(pss_mib: 900.0, sustained_rps: 0.0).status, "no rate is said before memory"
    end

    Record = Struct.new(:label, :envelope, :summary, keyword_init: true)
    Pool = Struct.new(:pool, keyword_init: true)

    def envelope(oom_kills: 0, periods: 100, throttled: 10, peak_mib: 120, oom_at_s: [])
      Results::EnvelopeFigures.new(memory_bytes: 256 * 1024**2, periods: periods, throttled_periods: throttled,
        peak_bytes: peak_mib && peak_mib * 1024**2, oom_kills: oom_kills, oom_at_s: oom_at_s).freeze
    end

    def test_pool_exhaustion_and_oom_kills_do_not_qualify
      ok = candidate
      plain = [Record.new(label: "closed"), Record.new(label: "open 700/s")]
      assert_same ok, Tune::Trial.fits(ok, plain)
      pool = Tune::Trial.fits(ok, [Record.new(label: "closed", summary: Pool.new), Record.new(label: "open", summary: Pool.new(pool: "5 threads, pool of 2"))])
      assert_equal ["pool-exhausted", "5 threads, pool of 2"], [pool.status, pool.why]
      killed = Tune::Trial.fits(ok, [Record.new(label: "closed", envelope: envelope),
        Record.new(label: "open 500/s", envelope: envelope(oom_kills: 2, oom_at_s: [3.5, 4.0])),
        Record.new(label: "open 700/s", envelope: envelope(oom_kills: 1, oom_at_s: [1.0]))])
      assert_equal "oom-killed", killed.status
      assert_equal "3 OOM kill(s) under the envelope's 256 MiB (first in open 500/s, at 3.5 s)", killed.why
    end

    def test_an_envelope_adds_the_worst_throttling_and_peak
      c = Tune::Trial.fits(candidate, [Record.new(label: "a", envelope: envelope(throttled: 10, peak_mib: 120)),
        Record.new(label: "b", envelope: envelope(throttled: 35, peak_mib: nil)), Record.new(label: "c"),
        Record.new(label: "d", envelope: envelope(throttled: 20, peak_mib: 150)), Record.new(label: "e", envelope: envelope(throttled: 5, peak_mib: 90))])
      assert_equal "ok", c.status
      assert_equal [35.0, 150.0], [c.throttled_pct, c.cgroup_peak_mib], "the worst of each, wherever it came"
      assert_nil Tune::Trial.fits(candidate, [Record.new(label: "a")]).throttled_pct
    end
  end
end
