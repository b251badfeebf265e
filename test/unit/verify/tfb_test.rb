# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "cgi"
require "tmpdir"

# TechEmpower's rules as Arena's verification (lib/arena/verify/tfb.rb), on answers
# written here: right ones pass, each broken one fails with what is wrong.
# The real app answers them in test/integration/tfb_test.rb.
class TfbRulesTest < Minitest::Test
  WORKLOADS = Arena::Verify::Tfb.workloads.to_h { |w| [w.name, w] }
  HEADERS = {"server" => "x", "date" => "Mon, 23 Nov 2026 16:00:00 GMT"}.freeze

  def problems(name, body, headers: HEADERS, type: "application/json")
    response = Arena::Verify::HttpProbe::Response.new(status: 200, body: body, chunked: false,
      headers: headers.merge("content-type" => type, "content-length" => body.bytesize.to_s))
    Arena::Verify.new(bind: nil, probe: nil).problems_of(WORKLOADS.fetch(name), response)
  end

  def worlds(n) = JSON.generate(Array.new(n) { |i| {id: i + 1, randomNumber: 10_000 - i} })

  def fortunes(rows)
    cells = rows.map { |id, m| "<tr><td>#{id}</td><td>#{CGI.escapeHTML(m)}</td></tr>" }.join
    "<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table><tr><th>id</th><th>message</th></tr>#{cells}</table></body></html>"
  end

  def sorted = (Arena::Verify::Tfb::FORTUNES + [Arena::Verify::Tfb::EXTRA_FORTUNE]).sort_by(&:last)

  def test_right_answers_pass
    assert_empty problems("json", '{"message":"Hello, World!"}')
    assert_empty problems("plaintext", "Hello, World!", type: "text/plain")
    assert_empty problems("db", '{"id":3217,"randomNumber":2149}')
    assert_empty problems("queries", worlds(20))
    assert_empty problems("updates", worlds(20))
    assert_empty problems("fortunes", fortunes(sorted), type: "text/html; charset=utf-8")
  end

  def test_server_and_date_headers_are_required
    assert_equal ["no Server header; no Date header"], problems("json", '{"message":"Hello, World!"}', headers: {})
    assert_equal ["Date \"yesterday\" is not an HTTP date"], problems("plaintext", "Hello, World!", type: "text/plain",
      headers: HEADERS.merge("date" => "yesterday"))
    assert_match(/does not match/, problems("json", '{"message":"Hello, World!"}', type: "text/plain").first)
  end

  def test_json_shapes_and_ranges
    assert_equal ["JSON is \"{\\\"Message\\\":\\\"Hello, World!\\\"}\", not {\"message\":\"Hello, World!\"}"],
      problems("json", '{"Message":"Hello, World!"}')
    assert_equal ["keys are [\"id\", \"randomnumber\"], expected [\"id\", \"randomNumber\"]"], problems("db", '{"id":1,"randomnumber":2}')
    assert_equal ["id 10001 is not an integer in 1..10000"], problems("db", '{"id":10001,"randomNumber":2}')
    assert_equal ["randomNumber 0 is not an integer in 1..10000"], problems("db", '{"id":1,"randomNumber":0}')
    assert_equal ["expected 20 World objects, got 19"], problems("queries", worlds(19))
    assert_match(/body is not JSON/, problems("updates", "oops").first)
  end

  # Plaintext is pipelined as TechEmpower loads it: 16 requests in flight
  # per connection, the engine's -p.
  def test_plaintext_is_pipelined_16_deep_and_the_engine_is_told
    assert_equal [16], Arena::Verify::Tfb.workloads.filter_map(&:pipeline)
    assert_equal 16, WORKLOADS.fetch("plaintext").pipeline
    Dir.mktmpdir do |dir|
      engine = Arena::Load::Engine.new(dir: dir, path: "/bin/true", machine: Arena::Plan::Machine.new(cores: 2).freeze)
      argv = engine.argv("http://127.0.0.1:1/plaintext", Arena::Load::Settings.build(connections: 256, pipeline: 16))
      assert_equal "16", argv[argv.index("-p") + 1]
      refute_includes engine.argv("http://127.0.0.1:1/json", Arena::Load::Settings.build(connections: 256)), "-p"
    end
  end

  def test_queries_clamping_is_checked_before_load
    checks = WORKLOADS.fetch("queries").checks
    assert_equal ["/queries?queries=0", "/queries?queries=foo", "/queries?queries=501", "/queries"], checks.map(&:path)
    assert_nil checks[0].check_body(worlds(1), nil)
    assert_equal "expected 1 World objects, got 0", checks[0].check_body("[]", nil)
    assert_equal "expected 1 World objects, got 0", checks[1].check_body("[]", nil)
    assert_equal "expected 500 World objects, got 501", checks[2].check_body(worlds(501), nil)
    assert_equal %w[/updates?queries=0 /updates?queries=foo /updates?queries=501 /updates], WORKLOADS.fetch("updates").checks.map(&:path)
  end

  def test_fortunes_must_be_all_sorted_and_escaped
    assert_equal ["fortunes are not sorted by message"], problems("fortunes", fortunes(sorted.reverse), type: "text/html")
    assert_equal ["12 fortune rows, expected 13"], problems("fortunes", fortunes(sorted - [Arena::Verify::Tfb::EXTRA_FORTUNE]), type: "text/html")
    raw = fortunes(sorted).sub("&lt;script&gt;", "<script>")
    assert_equal ["the <script> fortune is not escaped"], problems("fortunes", raw, type: "text/html")
    wrong = sorted.map { |id, m| [id, m.sub("フレームワーク", "?")] }
    assert_match(/\Afortune \[12, "\?のベンチマーク"\] where \[12, "フレームワークのベンチマーク"\] was expected/,
      problems("fortunes", fortunes(wrong), type: "text/html").first)
  end

  # arena-db.sql seeds what the rules expect.
  def test_the_seed_holds_every_fortune_and_10000_worlds
    sql = File.read(File.join(Arena::ROOT, "presets/tfb-rack/arena-db.sql"))
    Arena::Verify::Tfb::FORTUNES.each { |id, message| assert_includes sql, "(#{id}, '#{message.gsub("'", "''")}')" }
    assert_includes sql, "generate_series(1, 10000)"
  end
end
