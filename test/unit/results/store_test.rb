# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "tmpdir"

# The store's own view (what the reports of a run in progress read) holds
# the plan as results.json does: a Plan#to_h has symbol keys, the file has
# strings, and the report's "Load:" line must find its settings in both.
class ResultsStoreTest < Minitest::Test
  def test_the_load_line_is_recorded_in_the_stores_own_view
    Dir.mktmpdir do |dir|
      plan = {load: {connections: 16, duration: 1.0, warmup: 0.3, keep_alive: "on"}, repeat: 3, scenarios: ["steady"]}
      store = Arena::Results::Store.new(path: File.join(dir, "results.json"), environment: {}, plan: plan)
      line = Arena::Report::Facts.load(store.view.plan)
      assert_match(/\A16 connections; 1.0 s after a 0.3 s warm-up; keep-alive on; 3 rounds, interleaved/, line)
    end
  end

  # A server's record is handed over as a value (issue 36: no string-keyed
  # hash between the session and the store); the store writes its record.
  # Rounds that start every server afresh record a server at its first
  # start and at every failure, never at a later fresh start.
  def test_a_server_is_added_as_a_value_and_later_starts_add_only_failures
    Dir.mktmpdir do |dir|
      store = Arena::Results::Store.new(path: File.join(dir, "results.json"), environment: {}, plan: {})
      ok = Arena::Results::ServerRecord.new(label: "puma", name: "puma", settings: {}, status: "ok", log_tail: [], verify: []).freeze
      other = Arena::Results::ServerRecord.new(label: "unicorn", name: "unicorn", settings: {}, status: "ok", log_tail: [], verify: []).freeze
      failed = ok.failing("boom", log_tail: ["x"], after_start: true)
      once = Arena::Results::Store::FirstStart.new(store)
      [ok, other, ok, failed, other, failed].each { |s| once.add_server(s) }
      assert_equal [ok, other, failed, failed].map(&:to_record), store.document["servers"]
      assert_equal ["failed: boom", "ok"], store.view.servers.map(&:state), "the view: each label as it last stood"
      assert_equal %w[ok ok failed failed], JSON.parse(File.read(store.path))["servers"].map { |s| s["status"] }
      2.times { once.add_measurement(Struct.new(:to_record).new({"server" => "puma"})) }
      assert_equal [{"server" => "puma"}] * 2, store.document["measurements"], "every measurement passes through"
    end
  end
end
