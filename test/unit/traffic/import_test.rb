# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "arena/commands/traffic"
require "stringio"
require "zlib"

# `arena traffic import` on small logs written here: formats, templates,
# malformed lines, coverage, and the requests file it writes.
class TrafficImportUnitTest < Minitest::Test
  def setup
    @dir = Dir.mktmpdir("traffic-unit")
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def import(text, *flags, name: "x.log")
    log = File.join(@dir, name)
    File.binwrite(log, text)
    out = File.join(@dir, "r#{rand(1 << 30)}.yml")
    stdout = StringIO.new
    stderr = StringIO.new
    status = Arena::CLI.new(["traffic", "import", log, "-o", out, *flags], out: stdout, err: stderr).run
    [status, stdout.string, stderr.string, File.exist?(out) ? Arena::Plan::RequestsFile.load(out) : nil]
  end

  def access(method, target, status) = %(10.0.0.1 - - [23/Nov/2026:13:00:00 +0000] "#{method} #{target} HTTP/1.1" #{status} 5 "-" "curl")

  def test_malformed_lines_are_counted_and_skipped_by_line_number_never_fatal
    log = [access("GET", "/a", 200), "garbage here", access("GET", "/a", 200), "",
      %(10.0.0.1 - - [23/Nov/2026:13:00:00 +0000] "-" 400 0 "-" "-"), "\xff\xfe broken", access("GET", "/b/12", 200)].join("\n")
    status, out, err, file = import(log)
    assert_equal 0, status, err
    assert_match(/3 requests, 2 templates/, out)
    assert_match(/skipped 3 malformed lines: 2 \(not an access-log line\), 5 \(no request line \("-"\)\), 6 \(not an access-log line\)/, out)
    assert_equal %w[get_a get_b_id], file.requests.keys
  end

  def test_apache_common_json_lines_and_gzip_are_read
    common = %(127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326\n)
    _, out, _, file = import(common * 3)
    assert_match(/nginx\/Apache access log\): 3 requests/, out)
    assert_equal "/apache_pb.gif", file.requests.values.first.path

    json = [{method: "GET", path: "/users/3f2504e0-4f89-11d3-9a0c-0305e82c3301", status: 200},
      {method: "GET", path: "/users/6ba7b810-9dad-11d1-80b4-00c04fd430c8", status: 200},
      {request: "GET /health HTTP/1.1", status: "200"}].map(&:to_json).join("\n") + "\n{not json\n"
    gz = StringIO.new.tap { |io| Zlib::GzipWriter.wrap(io) { |z| z.write(json) } }.string
    status, out, err, file = import(gz, name: "app.log.gz")
    assert_equal 0, status, err
    assert_match(/JSON lines\): 3 requests, 2 templates/, out)
    assert_match(/skipped 1 malformed line: 4 \(not valid JSON\)/, out)
    assert_equal 2, file.requests.fetch("get_users_id").samples.size
    assert_equal "/health", file.requests.fetch("get_health").path
  end

  def test_templates_query_keys_redaction_and_the_most_common_status
    log = (1..8).map { |i| access("GET", "/orders/#{i}/lines?token=s#{i}&page=#{i}", (i == 8) ? 500 : 200) }
    _, out, _, file = import(log.join("\n"), "--redact", "token")
    assert_match(%r{GET +/orders/:id/lines\?page=:page&token=:token +weight 10000, expect 200, 7 sampled paths}, out)
    req = file.requests.values.first
    assert_equal 200, req.expect_status
    assert_equal 7, req.samples.size, "only requests that got the expected status are sampled"
    assert req.samples.all? { |p| p.match?(%r{\A/orders/\d/lines\?token=&page=\d\z}) }, req.samples.inspect
    _, _, _, file = import(log.join("\n"))
    assert_includes file.requests.values.first.samples, "/orders/3/lines?token=s3&page=3", "without --redact, values stay"
  end

  def test_coverage_and_bodies_decide_what_goes_in
    log = ([access("GET", "/a", 200)] * 80 + [access("POST", "/items", 201)] * 15 + [access("GET", "/rare", 200)] * 5).join("\n")
    _, out, _, file = import(log)
    assert_match(%r{left out: 15\.0% +POST +/items +has a body; give one with --body 'POST /items=FILE'}, out)
    assert_match(%r{beyond the coverage: 1 template, 5\.0% of requests \(GET /rare 5\.0%\)}, out)
    assert_equal %w[get_a], file.requests.keys

    body = File.join(@dir, "item.json")
    File.write(body, "{}")
    _, _, err, file = import(log, "--body", "POST /items=#{body}", "--coverage", "100")
    assert_equal %w[get_a post_items get_rare], file.requests.keys, err
    assert_equal "{}", file.requests.fetch("post_items").body
    assert_equal 201, file.requests.fetch("post_items").expect_status
  end

  def test_bad_input_is_one_line_and_exit_2
    status, _, err, = import("nothing\nthat\nparses\n")
    assert_equal 2, status
    assert_match(/no line is in a format Arena reads/, err)
    status, _, err, = import(access("GET", "/a", 200), "--coverage", "0")
    assert_equal [2, 1], [status, err.lines.size]
    status, _, err, = import(access("GET", "/a", 200), "--body", "POST /x=#{File.join(@dir, "none")}")
    assert_equal 2, status
    assert_match(/no such file/, err)
    existing = File.join(@dir, "keep.yml")
    File.write(existing, "mine")
    err = StringIO.new
    assert_equal 2, Arena::CLI.new(["traffic", "import", existing, "-o", existing], out: StringIO.new, err: err).run
    assert_match(/exists; Arena does not overwrite/, err.string)
    assert_equal "mine", File.read(existing)
  end

  # A request's paths share its weight in the engine's mix file.
  def test_sampled_paths_share_their_request_weight_in_the_mix_file
    path = File.join(@dir, "requests.yml")
    File.write(path, <<~YAML)
      requests:
        show: {path: /items/1, paths: [/items/1, /items/2, /items/2]}
        list: /items
      mixes:
        m: {show: 3, list: 1}
    YAML
    mix = Arena::Plan::RequestsFile.load(path).workloads.first
    lines = mix.mix_lines.map { |l| l.split(" ", 3).values_at(0, 2).join(" ") }
    assert_equal ["1000:show /items/1 200", "1000:show /items/2 200", "1000:show /items/2 200", "1000:list /items 200"], lines
    assert_equal %w[show list], mix.mix_names
    File.write(path, "requests:\n  a: {path: /a, paths: [nope]}\n")
    assert_raises(Arena::UsageError) { Arena::Plan::RequestsFile.load(path) }
  end
end
