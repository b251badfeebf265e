# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# "One line per finding" (DESIGN.md, the terminal): every kind of finding a
# run can make, from a synthetic results document of known figures, is one
# line of at most 100 columns in the terminal's summary, and report.md keeps
# its whole sentence under it. The scenarios' findings are built from the
# extras each scenario writes; the labels are the long ones a real run has.
class ReportFindingLinesTest < Minitest::Test
  R = Arena::Results
  PUMA = "puma:workers=2,threads=16"
  UNICORN = "unicorn:workers=4"
  WIDTH = Arena::Report::Brief::WIDTH

  def load(rps: 4000.0, errors: 0, timeline: [])
    completed = (rps * 2).round
    raw = {"schema" => "arena-load/2", "model" => "closed", "duration_s" => 2.0, "throughput_rps" => rps,
           "connections" => {"requested" => 16, "opened" => 16}, "requests" => {"sent" => completed + 16, "completed" => completed},
           "errors" => {"total" => errors, "reset" => errors},
           "latency_us" => {"count" => completed, "p50" => 380, "p99" => 4_000, "mean" => 1_700},
           "good" => {"completed" => completed - errors, "rps" => rps, "latency_us" => {"count" => completed, "p50" => 380, "p99" => 4_000, "mean" => 1_700}}}
    R::LoadFigures.from_h(raw).then { |l| l.dup.tap { |x| x.timeline = timeline.freeze }.freeze }
  end

  def m(server, scenario, variant: nil, kind: nil, extra: {}, measured: false, repeat: 1, envelope: nil, fault: nil, workload: "server")
    figures = measured ? load(timeline: timeline) : nil
    summary = measured ? R::Summary.of(figures, envelope: envelope, fault: fault) : nil
    R::Measurement.new(server: server, workload: workload, scenario: scenario, variant: variant, kind: kind, repeat: repeat,
      extra: extra, load: figures, summary: summary, envelope: envelope).freeze
  end

  def timeline = (0..19).map { |i| R::TimelinePoint.new(t: i * 0.1, completed: 400, good: 400, errors: 0, p50_us: 380, p99_us: 4000, error_kinds: {}).freeze }

  def crash(server, outcome, recovered)
    m(server, "crash", variant: "kill-worker", extra: {"victim" => 4803, "event_at_s" => 2.0, "outcome" => outcome,
                                                       "errors_after_event" => recovered ? 0 : 208, "recovered" => recovered, "recovery_s" => 0.5, "longest_us" => 64_503,
                                                       "verdict" => recovered ? "no lasting effect" : "not recovered",
                                                       "verdict_reason" => recovered ? "throughput at 90% or more of before from the first 0.5 s after" : "throughput not back to 90% within the 3.9 s measured after"})
  end

  def rate(server, repeat, knee)
    m(server, "rate", variant: "curve", kind: "summary", repeat: repeat, extra: {"slo_ms" => 100.0, "slo_relative" => true,
                                                                                 "closed_max_rps" => 9063.4 + repeat, "knee_rps" => knee, "verdict" => "knee",
                                                                                 "verdict_reason" => "#{Arena::Support::Format.rps(knee)} req/s (10,900 req/s missed)", "curve" => [], "levels" => 8})
  end

  def soak(server, repeat)
    m(server, "soak", variant: "soak", repeat: repeat, extra: {"soak_s" => 10, "target_rps" => 2834.6, "pss_first_kb" => 51_234,
                                                               "pss_last_kb" => 60_999, "slope_mib_per_min" => 41.2345, "r2" => 0.97, "last_third_mib_per_min" => 30.12, "last_third_growth_pct" => 6.3,
                                                               "verdict" => "growing", "verdict_reason" => "USS grew 6.3% over the last third, above the 2% floor", "slice_s" => 2,
                                                               "latency_drift" => {"first_p99_us" => 4_100, "last_p99_us" => 9_870}, "procs_start" => 3, "procs_min" => 2})
  end

  def head_of_line(server, tail)
    m(server, "head-of-line", kind: "summary", extra: {"slow" => "/sleep?ms=200", "share_pct" => 10, "rate" => 50.0, "beside_error_pct" => 0.0,
                                                       "fast" => [{"request" => "server", "alone_p50_us" => 412, "beside_p50_us" => 1_234, "p50_x" => 2.99, "alone_p99_us" => 1_050,
                                                                   "beside_p99_us" => 203_456, "p99_x" => 193.7, "tail_x" => tail}]})
  end

  def profile(server)
    stage = ->(label, asked, sent, good) { {"label" => label, "asked_rps" => asked, "sent_rps" => sent, "good_rps" => good, "p90_us" => 5_000, "p99_us" => 80_000, "errors" => 3, "dropped" => 12} }
    m(server, "profile", extra: {"stages" => [stage.call("ramp 0..500/s 60s", 250.0, 249.5, 249.0), stage.call("hold 500/s 120s", 500.0, 499.0, 498.7),
      stage.call("spike 1500/s 10s", 1500.0, 1234.5, 1100.2), stage.call("hold 500/s 60s", 500.0, 500.0, 499.0)],
                                 "recoveries" => [{"spike" => "spike 1500/s 10s", "spike_verdict" => "queued and shed",
                                                   "spike_reason" => "asked 1,500/s for 10 s, served at most 1,234/s; its requests' p90 412 ms against 5 ms before (x82); 123 of 15,000 shed (errors: timeout)",
                                                   "verdict" => "recovered", "verdict_reason" => "back to 90% throughput in 1.2 s", "recovered" => true, "recovery_s" => 1.2,
                                                   "p99_back_s" => 3.4, "p99_limit_us" => 100_000}]})
  end

  def worker_cost(server)
    points = [1, 2, 4].map { |n| {"workers" => n, "sharing_start" => 0.41, "sharing_end" => 0.38, "pss_kb" => 50_000 * n} } +
      [{"workers" => 8, "error" => "did not answer within 30 s"}, {"workers" => 2, "refork" => true, "refork_after" => "50,100", "reforked" => true, "sharing_start" => 0.5, "sharing_end" => 0.6, "pss_kb" => 90_000}]
    m(server, "worker-cost", kind: "summary", variant: "fit", extra: {"base_kb" => 41_234, "per_worker_kb" => 23_456, "r2" => 0.998,
                                                                      "worker_rss_kb" => 61_234, "points" => points})
  end

  def envelope(oom)
    R::EnvelopeFigures.from_h({"limits" => "memory=150MiB,cpus=0.5", "cpus" => 0.5, "memory_bytes" => 150 * 1024**2, "periods" => 200,
      "throttled_periods" => 37, "throttled_s" => 1.234, "peak_bytes" => 149 * 1024**2, "oom_kills" => oom ? 3 : 0,
      "oom_at_s" => oom ? [0.8, 1.2, 1.6] : []})
  end

  def document
    ms = [
      crash(PUMA, "replaced", true), crash(UNICORN, "died", false),
      m("webrick", "restart", variant: "none", kind: "summary", extra: {"unsupported" => "webrick has no zero-downtime restart Arena can trigger"}),
      m(PUMA, "restart", variant: "phased", extra: {"failed_requests" => 12, "longest_us" => 525_734, "dip_pct" => 100.0, "serving_after" => false}),
      rate(PUMA, 1, 9970.2), rate(PUMA, 2, 10_234.5), rate(UNICORN, 1, 4_321.0),
      soak(PUMA, 1), soak(UNICORN, 1), soak(UNICORN, 2),
      head_of_line(PUMA, 1.4), head_of_line(UNICORN, 3.4),
      m(PUMA, "head-of-line", kind: "summary", workload: "json", extra: {"reason" => "a mix of one request has nothing slow beside its fast requests (--slow-request PATH)"}),
      m(PUMA, "breakpoint", variant: "summary", kind: "summary", extra: {"last_clean_connections" => 50, "last_clean_rps" => 10_733.5,
                                                                         "verdict" => "broke", "verdict_reason" => "at 100 connections: p99 202.6 ms > SLO 100 ms, 1.2% errors"}),
      m(UNICORN, "slow-clients", variant: "with 2 slow headers", extra: {"count" => 2, "mode" => "headers", "rps_ratio" => 0.0412}),
      m(PUMA, "sustained", kind: "summary", extra: {"sustained_rps" => 6_789.1, "slo_ms" => 100.0, "closed_max_rps" => 9_063.4, "pss_mib" => 123.4}),
      worker_cost(PUMA), profile(PUMA),
      m("#{UNICORN}@memory=150MiB,cpus=0.5", "steady", variant: "keep-alive", measured: true, envelope: envelope(true)),
      m("#{PUMA}@cpus=0.5", "steady", variant: "keep-alive", measured: true, envelope: envelope(false)),
      m("agoo:workers=2,threads=4,poll_timeout=0.1", "steady", variant: "keep-alive", measured: true,
        fault: Arena::Verdicts::Verdict.of("truncated-response", "12 responses could not be parsed; the first began mid-header " \
          "(\"Content-Length: 2\\r\\n\"), without its status line: Puma's truncated response, a fault of Puma's keep-alive hand-off"))
    ]
    # A/A: a config and its twin over three rounds.
    ms += [PUMA, "#{PUMA}~aa"].product([1, 2, 3]).map { |server, round| m(server, "steady", variant: "keep-alive", measured: true, repeat: round) }
    # Two cores, as recorded: labels leave out what is a default there (workers=2).
    plan = R::PlanRecord.from_h({"machine" => {"cores" => 2, "engine_cpus" => [1]}})
    R::Document.new(measurements: ms.freeze, servers: [].freeze, notes: [].freeze, plan: plan).freeze
  end

  # The scenarios' sentences, whole, as report.md has them.
  def sentences = Arena::Report::Findings.scenario_lines(document) + Arena::Report::Findings.overall_lines(document) +
    Arena::Report::EnvelopeLines.call(document)

  def test_every_kind_of_finding_is_one_terminal_line_of_at_most_100_columns
    lines = Arena::Report::Brief.new(document).summary_lines
    kinds = %w[crash restart rate soak head-of-line breakpoint slow-clients sustained worker-cost profile OOM-killed envelope fault A/A]
    kinds.each { |kind| assert lines.any? { |l| l.include?("  #{kind}") }, "no #{kind} line in:\n#{lines.join("\n")}" }
    wide = lines.select { |l| l.size > WIDTH }
    assert_empty wide, "over #{WIDTH} columns:\n#{wide.join("\n")}"
    assert_empty lines.select { |l| l.end_with?("…") }, "a line cut short instead of worded short"
  end

  def test_the_terminal_figures_have_at_most_three_significant_figures
    lines = Arena::Report::BriefFindings.new(document).lines.map { |l| l.sub(/\A\S+/, "") }
    long = lines.flat_map { |l| l.scan(/(?<![\w.\/=-])\d[\d,]*\.?\d*/) }.reject { |n| n.delete(",.").sub(/\A0+/, "").sub(/0+\z/, "").size <= 3 }
    assert_empty long, lines.join("\n")
  end

  # report.md's Findings section: each line in bold, its whole sentence under it.
  def test_report_md_keeps_each_whole_sentence_under_its_line
    md = Arena::Report::Markdown.new(document).send(:findings)
    lines = Arena::Report::BriefFindings.new(document).lines
    (sentences + Arena::Report::AA.lines(document)).each { |s| assert_includes md, s }
    lines.each { |l| assert_includes md, "**#{l}**" }
    assert_includes md, "a fresh heap also grows this early"
  end
end
