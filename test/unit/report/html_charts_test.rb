# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# report.html's charts, read back from the markup: one colour per server on
# every chart, the fastest bar first, whiskers that are the summary's 95%
# interval, and labels given the room they need.
class ReportHtmlChartsTest < Minitest::Test
  PUMA = "puma:workers=2,threads=5,preload=false"
  FALCON = "falcon:count=2,model=forked"
  UNICORN = "unicorn:workers=2,preload=true,timeout=60"
  ROUNDS = {PUMA => [5_400, 5_650, 6_000], FALCON => [3_900, 3_980, 4_100], UNICORN => [7_000, 7_400, 7_500]}.freeze

  def document
    measurements = ROUNDS.flat_map do |server, rounds|
      %w[server primes].flat_map do |workload|
        rounds.each_with_index.map do |rps, i|
          rps /= 50.0 if workload == "primes"
          {"server" => server, "workload" => workload, "scenario" => "steady", "variant" => "keep-alive", "repeat" => i + 1,
           "load" => {"throughput_rps" => rps, "requests" => {"completed" => (rps * 2).round}, "errors" => {"total" => 0},
                      "latency_us" => {"count" => (rps * 2).round, "p50" => 500, "p75" => 700, "p90" => 900, "p99" => 2_000, "max" => 5_000}},
           "probes" => {"pss_peak_kb" => 50_000 + rps.round, "rss_peak_kb" => 90_000, "cpu_pct_mean" => 50}}
        end
      end
    end
    plan = {"machine" => {"cores" => 2, "cpus" => "pinned"}, "workloads" => [{"name" => "server"}, {"name" => "primes"}]}
    Arena::Results::Document.from_h({"plan" => plan, "measurements" => measurements,
      "servers" => ROUNDS.keys.map { |l| {"label" => l, "status" => "ok"} }})
  end

  def html = @html ||= Arena::Report::Html.new(document).render

  # Every mark drawn for a server (bars, memory bars, latency lines and
  # points, in the wide and the narrow drawing) has one colour, and no two
  # servers share one.
  def test_one_colour_per_server_on_every_chart
    colours = Hash.new { |h, k| h[k] = [] }
    html.scan(/<rect class="bar"[^>]*fill="(#\h{6})"[^>]*><title>([a-z]+)/) { |colour, name| colours[name] << colour }
    html.scan(/<(?:path class="series"|circle class="point")[^>]*(?:stroke|fill)="(#\h{6})"[^>]*><title>([a-z]+)/) { |colour, name| colours[name] << colour }
    assert_equal %w[falcon puma unicorn], colours.keys.sort
    # 2 throughput charts + memory, wide and narrow: 6 bars each; latency lines and points besides.
    colours.each { |name, seen| assert_operator seen.size, :>=, 12, name }
    colours.each { |name, seen| assert_equal 1, seen.uniq.size, "#{name} in #{seen.uniq.join(", ")}" }
    assert_equal 3, colours.values.map(&:first).uniq.size, "servers share a colour: #{colours.transform_values(&:first)}"
  end

  # The same server keeps its colour from one report to the next, whatever
  # else ran beside it: it is the server's, not its place on the page.
  def test_a_server_keeps_its_colour_across_reports
    alone = Arena::Report::Colors.new([PUMA])
    crowd = Arena::Report::Colors.new([UNICORN, FALCON, "agoo:workers=2", PUMA])
    assert_equal alone.call(PUMA), crowd.call(PUMA)
    # A second config of the same server, and a name Arena does not know, take colours no one holds.
    two = Arena::Report::Colors.new([PUMA, "puma:workers=4,threads=5,preload=false", "custom", UNICORN])
    assert_equal 4, [PUMA, "puma:workers=4,threads=5,preload=false", "custom", UNICORN].map { |l| two.call(l) }.uniq.size
    # Every server Arena knows has its own.
    all = Arena::Servers.registry.keys
    assert_equal all.size, Arena::Report::Colors.new(all).then { |c| all.map { |k| c.call(k) } }.uniq.size
  end

  # Bars: the fastest first; the whisker is the median's 95% interval, as
  # the summary's ±, and the axis says so (it was min-max).
  def test_bars_sorted_and_whiskers_from_the_interval
    chart = html[/<svg[^>]*class="chart wide"[^>]*><title>Throughput server.*?<\/svg>/m]
    refute_nil chart
    order = chart.scan(/<rect class="bar"[^>]*><title>([a-z]+) /).flatten
    assert_equal %w[unicorn puma falcon], order
    interval = Arena::Stats.interval(ROUNDS[PUMA])
    assert interval.measured?
    words = "puma good req/s: 5,650 (95% interval #{Arena::Support::Format.rps(interval.low)}–#{Arena::Support::Format.rps(interval.high)})"
    assert_includes chart, words
    refute_includes chart, "5,400–6,000", "min–max is not the whisker"
    assert_includes chart, "whiskers: its 95% interval, the ± of the summary"
    refute_match(/min–max/, html)
  end

  # A label never cut: the label column is as wide as the widest label
  # needs, and a label longer than the column allows is broken into lines,
  # each of which fits left of the axis, in the wide and the narrow drawing.
  def test_long_labels_fit_left_of_the_axis
    long = "passenger:min_instances=2,max_pool_size=2,concurrency_model=process,engine=builtin"
    [960, 400].each do |width|
      svg = Arena::Report::Svg::Bars.new(title: "t", categories: [long, "webrick"], x_label: "good requests per second",
        format: ->(v) { v.to_s }, series: [{name: "good req/s", values: [10, 20]}], width: width).render
      spans = svg.scan(/<tspan x="([\d.]+)" y="[\d.]+">([^<]*)<\/tspan>/)
      assert_operator spans.size, :>, 2, "the long label is broken into lines at #{width}"
      assert_equal long, spans[0...-1].map(&:last).join
      spans.each do |x, text|
        assert_operator x.to_f - Arena::Report::Svg.text_width(text), :>=, 0, "#{text.inspect} runs off the left edge at #{width}"
      end
      axis = svg[/<line x1="([\d.]+)" y1="[\d.]+" x2="\1"[^>]*stroke="#333"/, 1].to_f
      spans.each { |x, _| assert_operator x.to_f, :<, axis, "a label reaches into the plot" }
    end
  end

  # A whisker far beyond every bar is cut at the axis's end, with an arrow,
  # rather than squeezing the bars into the left edge.
  def test_a_very_wide_whisker_is_cut_not_the_bars
    svg = Arena::Report::Svg::Bars.new(title: "t", categories: %w[a b], x_label: "x", format: ->(v) { v.to_s },
      series: [{name: "s", values: [100, 90], lows: [95, 10], highs: [105, 5_000]}]).render
    assert_includes svg, %(class="cut")
    widths = svg.scan(/<rect class="bar"[^>]*width="([\d.]+)"/).flatten.map(&:to_f)
    assert_operator widths.max, :>, 400, "the longest bar keeps most of the plot: #{widths}"
  end
end
