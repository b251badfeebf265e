# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "arena/tune"

module Arena
  # A tune candidate's figures and the capacity note's rule (Little's law,
  # the CPU and slot ceilings, which one limits), on values whose arithmetic
  # is worked in the comments.
  class TuneCandidateTest < Minitest::Test
    cover "Arena::Tune::Candidate*"
    cover "Arena::Tune::Capacity*"

    def candidate(**kw)
      Tune::Candidate.new(settings: {"workers" => 1, "threads" => 5}, sustained_rps: 100.0, closed_rps: 120.0, cpu_pct: 40.0,
        mean_ms: 30.0, service_ms: 40.0, pss_kb: 1536, status: "ok", rates: [100.0], elapsed_s: 10.0, **kw).freeze
    end

    def test_a_failed_config
      c = Tune::Candidate.failed({"workers" => 9}, "did not boot", elapsed_s: 1.5)
      assert c.frozen?
      assert_equal [{"workers" => 9}, "failed", "did not boot", 1.5], [c.settings, c.status, c.why, c.elapsed_s]
      assert_equal [0.0, 0.0, [0.0]], [c.sustained_rps, c.closed_rps, c.rates]
      refute c.qualifies?
      assert_equal 0.0, c.score
      assert_nil c.spread
      assert_equal 0.0, Tune::Candidate.failed({}, "x").elapsed_s
      assert_nil c.label
    end

    def test_only_ok_qualifies_and_scores
      assert candidate.qualifies?
      assert_equal 100.0, candidate.score
      assert_kind_of Float, candidate(sustained_rps: 7).score
      assert_equal 0.0, candidate(sustained_rps: nil).score
      %w[over-memory unsustained pool-exhausted oom-killed].each do |status|
        refute candidate(status: status).qualifies?, status
        assert_equal 0.0, candidate(status: status).score, status
      end
    end

    def test_pss_in_mib_to_a_tenth
      assert_equal 1.5, candidate.pss_mib
      assert_equal 1.1, candidate(pss_kb: 1100).pss_mib
      assert_equal 1.0, candidate(pss_kb: 1000).pss_mib
      assert_nil candidate(pss_kb: nil).pss_mib
    end

    def test_a_repeat_averages_the_rate_and_keeps_the_spread
      again = candidate.repeated(candidate(sustained_rps: 110.0, rates: [110.0, 112.0], elapsed_s: 4.0, pss_kb: 2048))
      assert again.frozen?
      assert_equal [100.0, 110.0, 112.0], again.rates
      assert again.rates.frozen?
      assert_equal 107.3, again.sustained_rps # 322 / 3, to a tenth
      assert_equal 14.0, again.elapsed_s
      assert_equal 2048, again.pss_kb, "the larger PSS of the two"
      assert_equal 2048, candidate(pss_kb: 2048).repeated(candidate).pss_kb, "the larger, first or second"
      assert_equal 1536, candidate.repeated(candidate(pss_kb: nil, elapsed_s: nil)).pss_kb
      assert_equal 10.0, candidate(elapsed_s: nil).repeated(candidate).elapsed_s
      assert_equal 100.0, candidate.sustained_rps, "the original is left as it was"
    end

    # A config that failed, ran out of memory, was OOM-killed or ran its
    # pool dry in any of its measurements does not qualify: the first
    # failure stands, with its reason.
    def test_a_repeat_that_did_not_qualify_disqualifies
      killed = candidate.repeated(candidate(status: "oom-killed", why: "1 OOM kill(s)", sustained_rps: 90.0, rates: [90.0]))
      assert_equal ["oom-killed", "1 OOM kill(s)", [100.0, 90.0]], [killed.status, killed.why, killed.rates]
      refute killed.qualifies?
      failed = candidate.repeated(Tune::Candidate.failed({"workers" => 1}, "did not boot"))
      assert_equal ["failed", "did not boot"], [failed.status, failed.why]
      first = candidate(status: "over-memory", why: "PSS over").repeated(candidate(status: "unsustained", why: "no rate"))
      assert_equal ["over-memory", "PSS over"], [first.status, first.why], "the first failure stands"
      ok = candidate(why: "kept").repeated(candidate)
      assert_equal ["ok", "kept"], [ok.status, ok.why]
    end

    def test_the_spread_of_repeats
      assert_nil candidate.spread, "one figure"
      assert_in_delta 0.2, candidate(rates: [90.0, 110.0]).spread, 1e-12 # (110 - 90) / 100
      assert_in_delta 0.3, candidate(rates: [80.0, 110.0, 110.0]).spread, 1e-12 # 30 / 100
      assert_in_delta 40 / 97.5, candidate(rates: [100.0, 80.0, 120.0, 90.0]).spread, 1e-12, "max and min wherever they are"
      assert_nil candidate(rates: [0.0, 0.0]).spread
    end

    def capacity(server: "puma", cores: 1, **kw) = Tune::Capacity.new(server: Servers.fetch(server), candidate: candidate(**kw), cores: cores)

    # puma, 1 worker x 5 threads: 5 slots; 100 req/s at a mean 30 ms: L = 3;
    # 40% of a core at 120 req/s: 3.333 ms of CPU a request, one core: 300
    # req/s; a slot held 40 ms: 5 slots pass 125 req/s, and 120 >= 0.8 x 125.
    def test_the_slots_limit
      cap = capacity
      assert_equal [5, 3.0, 40.0, 3.333, 125.0, 40.0, 1], [cap.slots, cap.in_server, cap.service_ms, cap.cpu_ms, cap.slot_ceiling, cap.cpu_pct, cap.cores]
      assert_in_delta 300.03, cap.cpu_ceiling, 0.01
      assert_equal "slots", cap.limit
      assert_equal "At 100 req/s with a mean latency of 30.0 ms, Little's law puts L = 3.0 requests in the server on average " \
        "for 5 slots (workers x threads). At the closed maximum (120 req/s) the tree used 40% of a core, 3.333 ms of CPU a request: " \
        "1 server core serves at most 300 req/s. A request holds a slot S = 40.0 ms (its time inside the app, measured with " \
        "--queue-time on; else its mean latency at a light rate, else unloaded), so 5 slots could pass 125 req/s. The slots are " \
        "the limit: more would serve more, as long as the CPU and the memory budget allow.", cap.explanation
      assert_equal "slots", capacity(closed_rps: 100.0).limit, "at 0.8 x the slot ceiling"
      assert_equal "waiting", capacity(closed_rps: 99.9).limit
      assert_kind_of Float, capacity(service_ms: 40).service_ms
    end

    # 150% of a core at 120 req/s: 12.5 ms a request; two cores: 160 req/s;
    # 150% is 75% of two cores: CPU-bound. Falcon has no slot ceiling.
    def test_the_cpu_limit_without_slots
      cap = capacity(server: "falcon", cores: 2, settings: {"count" => 2}, cpu_pct: 150.0, mean_ms: 80.0)
      assert_nil cap.slots
      assert_nil cap.slot_ceiling
      assert_equal [12.5, 160.0, "cpu"], [cap.cpu_ms, cap.cpu_ceiling, cap.limit]
      assert_equal "At 100 req/s with a mean latency of 80.0 ms, Little's law puts L = 8.0 requests in the server on average " \
        "(no fixed slot ceiling). At the closed maximum (120 req/s) the tree used 150% of a core, 12.5 ms of CPU a request: " \
        "2 server cores serve at most 160 req/s. The CPU is the limit: more slots would only queue requests and cost memory.", cap.explanation
      assert_equal "waiting", capacity(server: "falcon", cores: 2, settings: {"count" => 2}, cpu_pct: 149.9).limit
      assert_equal "cpu", capacity(cores: 1, cpu_pct: 75.0, closed_rps: 10.0).limit
    end

    def test_queued_requests_and_the_waiting_verdict
      cap = capacity(sustained_rps: 200.0, mean_ms: 50.0, closed_rps: 20.0, cpu_pct: 5.0)
      assert_equal 10.0, cap.in_server
      assert_equal "waiting", cap.limit
      text = cap.explanation
      assert_includes text, "L = 10.0 requests in the server on average for 5 slots (workers x threads; the rest queue)."
      assert text.end_with?(" Neither is reached: requests wait (I/O, the GVL, the server's own work), so slots that overlap the waiting pay.")
      assert_equal 0.86, capacity(sustained_rps: 123.456, mean_ms: 7.0).in_server
    end

    def test_missing_figures
      assert_equal "not enough figures for a capacity explanation", capacity(mean_ms: nil).explanation
      assert_nil capacity(mean_ms: nil).in_server
      assert_nil capacity(closed_rps: 0.0).limit
      assert_nil capacity(closed_rps: nil).limit
      assert_nil capacity(closed_rps: 0.0).cpu_ms
      assert_nil capacity(cpu_pct: nil).cpu_ms
      assert_nil capacity(cpu_pct: 0.0).cpu_ceiling
      assert_nil capacity(cpu_pct: nil).cpu_ceiling
      assert_nil capacity(closed_rps: nil).cpu_ms
      assert_equal 0.0, capacity(sustained_rps: nil).in_server
      assert_nil capacity(closed_rps: -1.0).limit
      assert_equal "waiting", capacity(closed_rps: 0.5).limit, "half a request a second is still a figure"
      assert_nil capacity(service_ms: 0.0).slot_ceiling
      assert_nil capacity(service_ms: nil).slot_ceiling
      assert_nil capacity(service_ms: nil).service_ms
      no_cpu = capacity(cpu_pct: nil, service_ms: nil).explanation
      refute_includes no_cpu, "closed maximum"
      refute_includes no_cpu, "holds a slot"
      assert_nil Tune::Capacity.new(server: Servers.fetch("webrick"), candidate: candidate, cores: 1).slots, "no slots declared"
    end
  end
end
