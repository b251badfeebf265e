# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# The memory scenarios' findings, sections and recommendation, rendered from
# real runs: test/fixtures/results/memory-soak (Puma with preload and
# Pitchfork, 2 workers each, /server and /leak?kb=64, 12 s soaks at 200
# req/s) and memory-workers (the same servers, /server, worker-cost at 1, 2,
# 4 workers; Pitchfork also reforked).
class ReportMemoryTest < Minitest::Test
  cover "Arena::Scenarios::SoakAnalysis*"
  cover "Arena::Report::Recommend*"

  FIXTURES = File.expand_path("../../fixtures/results", __dir__)

  def source(name) = Arena::Report::Source.open(File.join(FIXTURES, name))

  # The fixture's samples judged again by SoakAnalysis (not the verdicts the
  # fixture holds): /leak?kb=64 at 200 req/s grows (750 MiB/min); /server on
  # Pitchfork does not; /server on a fresh preloaded Puma grows steadily in
  # these 12 s (USS +460 KB over the last 4 s, every block above the one
  # before: its heap's warm-up), so it is growing in this window, and the
  # finding says a soak this short cannot tell that from a leak. (The rule
  # called it plateaued only while 20 samples made 5 blocks, too few to rise.)
  def test_soak_analysis_of_the_fixture_finds_the_leak_and_states_floors
    view = source("memory-soak").view
    judged = view.measured.select { |m| m.variant == "soak" }.to_h do |m|
      x = Arena::Scenarios::SoakAnalysis.call(m, rate: m.extra["target_rps"], closed_max: m.extra["closed_max_rps"])
      [[m.server.split(":").first, m.workload], x]
    end
    assert_equal({%w[puma server] => "growing", %w[puma leak] => "growing", %w[pitchfork server] => "plateaued",
      %w[pitchfork leak] => "growing"}, judged.transform_values { |x| x["verdict"] })
    assert_equal "no growth above 0.42 MiB/min detected (this soak's floor)", judged[%w[pitchfork server]]["verdict_reason"]
    assert_equal "+749.44 MiB/min, above the 33.93 MiB/min this soak's scatter could make alone", judged[%w[puma leak]]["verdict_reason"]
    m = view.measured.find { |x| x.variant == "soak" && x.workload == "server" && x.server.start_with?("puma") }
    line = Arena::Report::Side.of(Arena::Scenarios::Soak).finding(m.with(extra: m.extra.merge(judged[%w[puma server]])))
    assert_equal "puma:workers=2,threads=5,preload=true server soak (12.5 s at 200 req/s): PSS 51.2 MiB -> 53.0 MiB, " \
      "+8.08 MiB/min (R² 0.97); last third +6.92 MiB/min, private memory (USS) +1.2%: growing: +7.21 MiB/min, above the " \
      "5.04 MiB/min this soak's scatter could make alone (a 12.5 s soak: a fresh heap also grows this early; 120 s or more, " \
      "300 by default, tells a leak from warm-up), p99 501.8ms in the first 3 s, 733.2ms in the last", line
    long = m.with(extra: m.extra.merge(judged[%w[puma server]], "soak_s" => 120.0))
    refute_includes Arena::Report::Side.of(Arena::Scenarios::Soak).finding(long), "fresh heap", "a 120 s soak is long enough"
    pf = view.measured.find { |x| x.variant == "soak" && x.workload == "server" && x.server.start_with?("pitchfork") }
    refute_includes Arena::Report::Side.of(Arena::Scenarios::Soak).finding(pf.with(extra: pf.extra.merge(judged[%w[pitchfork server]]))), "fresh heap", "plateaued: no caution"
    md = Arena::Report::Markdown.new(view, notes: []).render
    assert_includes md, "puma:workers=2,threads=5,preload=true leak soak (12.4 s at 200 req/s): PSS 570.7 MiB -> 723.3 MiB, +746.53 MiB/min"
  end

  # 64 KB x 200 req/s is 750 MiB/min: the fit found it within a few percent.
  def test_the_leak_slope_in_the_fixture_matches_its_known_rate
    source("memory-soak").view.measured.select { |m| m.variant == "soak" && m.workload == "leak" }.each do |m|
      assert_in_delta 64.0 * m.good_rps * 60 / 1024, m.extra["slope_mib_per_min"], 0.1 * 750
    end
  end

  def test_soak_sections_draw_memory_and_latency_over_time
    view = source("memory-soak").view
    sections = Arena::Report::Side.of(Arena::Scenarios::Soak).sections(view, colors: ->(_) { "#0072B2" })
    assert_equal %w[soak-1 soak-2 soak-3 soak-4], sections.map(&:id)
    memory, latency = sections.first.charts
    assert_match(/\AMemory over time \((plateaued|growing), [+-]\d+\.\d\d MiB\/min\)\z/, memory[:title])
    %w[PSS\ (tree) USS\ (tree) PSS\ pid].each { |name| assert_includes memory[:svg], name }
    assert_includes latency[:title], "drift"
    assert_equal 3, sections.first.rows.size, "master and two workers"
  end

  def test_worker_cost_finding_chart_and_table
    view = source("memory-workers").view
    fits = view.measurements.select { |m| m.scenario == "worker-cost" && m.summary? }
    assert_equal 2, fits.size
    puma = fits.find { |m| m.server.start_with?("puma") }
    finding = Arena::Report::Side.of(Arena::Scenarios::WorkerCost).finding(puma)
    assert_match(/worker-cost: PSS ≈ \d+\.\d MiB \+ n × \d+\.\d MiB \(R² \d\.\d\d, n = 1\/2\/4\)/, finding)
    assert_operator puma.extra["per_worker_kb"], :<, puma.extra["worker_rss_kb"]
    refork = fits.find { |m| m.server.start_with?("pitchfork") }.extra["points"].find { |p| p["refork"] }
    assert refork["reforked"], "the fixture's Pitchfork reforked mid-load"
    section = Arena::Report::Side.of(Arena::Scenarios::WorkerCost).sections(view, colors: ->(_) { "#0072B2" }).first
    assert_equal "worker-cost", section.id
    assert_equal 7, section.rows.size, "3 counts per server and Pitchfork's refork"
    assert_equal 1, section.rows.count { |r| r[2].to_s.match?(/\A4 \(refork_after \d+\)\z/) }, "the refork's row names its setting"
    points = Arena::Scenarios::WorkerCost.points_of(Arena::Scenarios::WorkerCost.figures_of(puma))
    assert_equal [1, 2, 4], points.map(&:workers), "the fit's points as records"
    assert points.all? { |q| q.pss_kb.to_i.positive? && q.uss_kb.to_i.positive? }
    svg = section.charts.first[:svg]
    assert_equal 6, svg.scan('class="bar"').size, "private and shared for each of 3 counts"
    assert_includes svg, "shared, counted once"
  end

  def test_memory_recommendation_uses_the_per_worker_cost
    memory = Arena::Report::Recommend.new(source("memory-workers").view).call.find { |r| r.use_case.start_with?("limited memory") }
    assert_match(/\A(puma|pitchfork):workers=1,/, memory.pick)
    assert_match(/MiB PSS under load at 1 worker .* per worker\), the fewest workers reaching/, memory.because)
  end

  # Puma served 8151, 9800 and 7511 req/s at 1, 2 and 4 workers; at 75% of
  # the best (7350) all three counts reach the floor, and the pick is the
  # fewest of them, with that count's own PSS. Pitchfork (5755 at best)
  # reaches none and is not ranked.
  def test_memory_at_floor_picks_the_fewest_workers_that_reach_it
    found = Arena::Scenarios::WorkerCost.memory_at_floor(source("memory-workers").view, share: 0.75)
    assert_in_delta 7350.4, found[:floor], 0.1
    assert_equal [["puma:workers=1,threads=5,preload=true", 1, 37810]], found[:ranked].map { |o| [o[:server], o[:workers], o[:pss_kb]] }
  end

  def test_html_has_the_memory_sections
    html = Arena::Report::Html.new(source("memory-workers").view, notes: []).render
    assert_includes html, %(id="worker-cost")
  end
end
