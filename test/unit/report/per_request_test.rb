# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# The per-request table of a mix, from engine documents written here.
class ReportPerRequestTest < Minitest::Test
  def measurement(repeat, fast_p99, slow_good)
    {"server" => "puma", "workload" => "shop", "scenario" => "steady", "variant" => "keep-alive", "repeat" => repeat,
     "load" => {"schema" => "arena-load/2", "model" => "closed", "duration_s" => 2.0,
                "requests" => {"sent" => 1000, "completed" => 1000}, "errors" => {"unexpected_status" => 10, "total" => 10},
                "good" => {"completed" => 990, "rps" => 495.0, "latency_us" => {"count" => 990, "p50" => 1000, "p99" => 50_000}},
                "latency_us" => {"count" => 1000, "p50" => 1000, "p99" => 50_000},
                "requests_mix" => [
                  {"name" => "fast", "weight_share" => 0.9, "completed" => 900, "good" => 900, "bad" => 0,
                   "latency_us" => {"count" => 900, "min" => 200, "p50" => 800, "p99" => fast_p99, "max" => 4000}},
                  {"name" => "slow", "weight_share" => 0.1, "completed" => 100, "good" => slow_good, "bad" => 100 - slow_good,
                   "latency_us" => {"count" => slow_good, "min" => 40_000, "p50" => 45_000, "p99" => 60_000, "max" => 61_000}}
                ]}}
  end

  def test_each_request_of_a_mix_is_a_row_with_its_own_share_errors_and_percentiles
    doc = Arena::Results::Document.from_h({"measurements" => [measurement(1, 2000, 90), measurement(2, 3000, 90)]})
    assert_equal <<~TABLE, Arena::Report::PerRequest.render(doc)
      +--------------------------------------------------------------------------------------------------------------------+
      |                                                per request of a mix                                                |
      +--------+----------+-------------------+---------+-------+------------+------------+-----+--------+--------+--------+
      | server | workload | scenario          | request | asked | of goodput | good req/s | bad | p50    | p99    | max    |
      +--------+----------+-------------------+---------+-------+------------+------------+-----+--------+--------+--------+
      | puma   | shop     | steady keep-alive | fast    | 90.0% |      90.9% |        450 |   0 |  800us |  2.5ms |  4.0ms |
      | puma   | shop     | steady keep-alive | slow    | 10.0% |       9.1% |       45.0 |  20 | 45.0ms | 60.0ms | 61.0ms |
      +--------+----------+-------------------+---------+-------+------------+------------+-----+--------+--------+--------+
    TABLE
  end

  def test_a_single_request_has_no_per_request_rows
    m = measurement(1, 2000, 90)
    m["load"].delete("requests_mix")
    assert_empty Arena::Report::PerRequest.rows(Arena::Results::Document.from_h({"measurements" => [m]}))
  end

  def test_the_markdown_has_the_per_request_section_with_its_rows
    doc = Arena::Results::Document.from_h({"measurements" => [measurement(1, 2000, 90), measurement(2, 3000, 90)]})
    md = Arena::Report::Markdown.new(doc).render
    section = md[/### Per request of a mix\n.*?(?=\n#|\z)/m]
    refute_nil section, md
    assert_includes section, "its own latency"
    assert_includes section, "| puma | shop | steady keep-alive | slow | 10.0% | 9.1% | 45.0 | 20 | 45.0ms | 60.0ms | 61.0ms |"
  end
end
