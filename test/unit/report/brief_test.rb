# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# What `arena run` prints at its end (issue 45): at most 100 columns, one
# table per workload and scenario sorted by goodput with failed configs
# last, a verdict in words per row, one line per finding, the pick last.
class ReportBriefTest < Minitest::Test
  cover "Arena::Report::Brief*"
  cover "Arena::Support::Short*"

  Brief = Arena::Report::Brief
  DRIFT = [0.8, 1.2, 0.9, 1.15, 0.85, 1.05].freeze

  def m(server, rps, round, p99: 3100, errors: 0, workload: "server", summary: nil)
    completed = (rps * 2).round
    h = {"server" => server, "workload" => workload, "scenario" => "steady", "variant" => "keep-alive", "repeat" => round,
         "load" => {"schema" => "arena-load/2", "model" => "closed", "duration_s" => 2.0, "throughput_rps" => rps,
                    "requests" => {"completed" => completed, "sent" => completed + errors}, "latency_us" => {"count" => completed, "p99" => p99},
                    "errors" => {"total" => errors}},
         "probes" => {"pss_peak_kb" => 42_188, "cpu_pct_mean" => 90.0}}
    h["summary"] = summary if summary
    h
  end

  # Iodine 1.82x Puma in every round, Itsi 1% under Iodine (the same within 3%), a
  # long-labelled WEBrick at 0.05x, and a config that failed 30% of its
  # requests while its good answers alone outran everyone.
  def document
    measurements = DRIFT.each_with_index.flat_map do |d, i|
      round = i + 1
      [m("puma:workers=2,threads=5", 1000 * d, round), m("iodine:workers=2,threads=4", 1820 * d * (1 + 0.004 * (-1)**i), round),
        m("itsi:workers=2,threads=4", 1800 * d * (1 + 0.004 * (-1)**(i + 1)), round),
        m("webrick:this=a-very-long-setting-value-that-goes-on-and-on,and=another-one-of-them", 90 * d, round, p99: 101_800),
        m("falcon:count=2", 5000 * d, round, errors: 4300)]
    end
    Arena::Results::Document.from_h({"measurements" => measurements})
  end

  def test_every_line_fits_100_columns
    text = Brief.new(document).render
    wide = text.lines.map(&:chomp).reject { |l| l.size <= 100 }
    assert_empty wide, text
    assert_match(/^webrick:this=a-very-long-\S+… +0\.05×/, text, "a long label is cut, not dropped")
  end

  def test_rows_are_sorted_by_goodput_with_a_failed_config_last_and_never_fastest
    table = Brief.new(document).lines.take_while { |l| !l.empty? }
    names = table.drop(1).map { |l| l[/\A\S+/].split(":").first }
    assert_equal %w[iodine itsi puma webrick falcon], names, table.join("\n")
    assert_match(/\Aserver · steady keep-alive +vs the fastest +good req\/s +p99 +memory\z/, table.first)
  end

  def test_each_row_says_its_verdict_in_words
    words = Brief.new(document).groups.first.last.to_h { |row, said| [row.server.split(":").first, said] }
    assert_equal "fastest", words["iodine"]
    assert_match(/\A~ same as the fastest \(within ±\d(\.\d)?%\)\z/, words["itsi"])
    assert_match(/\A0\.55× \(0\.5\d–0\.5\d\)\z/, words["puma"])
    assert_equal "failed: 30.2% errors", words["falcon"]
    table = Brief.new(document).render
    assert_match(/^iodine:workers=2 +fastest +1\.77k ±17% +3\.1 ms +41\.2 MiB$/, table)
  end

  # The leading figure orders the rows: a paired ratio can put a row of a
  # lower median goodput above one of a higher (9.87k at 0.36× above 9.88k at 0.32×).
  def test_rows_follow_the_ratio_that_leads_them
    row = ->(server, rps, flags = []) { Arena::Report::Rows::Row.new(server: server, workload: "server", scenario: "steady", rps: rps, flags: flags) }
    ref, falcon, pitchfork, failed = row.call("iodine", 27_400), row.call("falcon", 9_880), row.call("pitchfork", 9_870), row.call("x", 30_000, ["errors"])
    value = ->(ratio) { Arena::Report::Relative::Value.new(ratio: ratio) }
    values = {Arena::Report::Relative.key(falcon) => value.call(0.32), Arena::Report::Relative.key(pitchfork) => value.call(0.36)}
    assert_equal %w[iodine pitchfork falcon x], Brief.by_ratio([ref, falcon, pitchfork, failed], values, ref).map(&:server)
    assert_equal %w[iodine falcon pitchfork], Brief.by_ratio([ref, falcon, pitchfork], {}, ref).map(&:server), "no ratios: goodput"
  end

  def test_a_row_without_an_interval_says_so
    one = Arena::Results::Document.from_h({"measurements" => [m("puma", 1000, 1), m("iodine", 1820, 1)]})
    words = Brief.new(one).groups.first.last.map(&:last)
    assert_equal ["fastest", "0.55× (1 round: no interval)"], words
  end

  def test_figures_carry_three_significant_figures_at_most
    short = Arena::Support::Short
    assert_equal %w[0 8.42 84.2 842 1k 14.2k 142k 1.42M], [0, 8.4213, 84.213, 842.13, 999.6, 14_213, 142_130, 1_421_300].map { |v| short.rate(v) }
    assert_equal ["-", "850 µs", "3.1 ms", "102 ms", "1.25 s"], [nil, 850.2, 3100, 101_800, 1_250_000].map { |v| short.duration_us(v) }
    assert_equal ["-", "41.2 MiB", "1.23 GiB"], [0, 42_188, 1_289_748].map { |v| short.memory_kb(v) }
    assert_equal ["±1.2%", "±24%"], [1.23, 23.9].map { |v| short.plus_minus(v) }
  end
end
