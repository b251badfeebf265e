# frozen_string_literal: true

require_relative "../test_helper"
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
  # A restarted round's store adds a server's failure, not its fresh starts.
  def test_a_server_is_added_as_a_value_and_a_restarted_round_adds_only_failures
    Dir.mktmpdir do |dir|
      store = Arena::Results::Store.new(path: File.join(dir, "results.json"), environment: {}, plan: {})
      ok = Arena::Results::ServerRecord.new(label: "puma", name: "puma", settings: {}, status: "ok", log_tail: [], verify: []).freeze
      failed = ok.failing("boom", log_tail: ["x"], after_start: true)
      once = Arena::Run::RestartedRounds::StoreOnce.new(store)
      once.add_server(ok)
      once.add_server(failed)
      assert_equal [failed.to_record], store.document["servers"]
      assert_equal ["failed: boom"], store.view.servers.map(&:state)
      store.add_server(ok)
      assert_equal %w[failed ok], JSON.parse(File.read(store.path))["servers"].map { |s| s["status"] }
    end
  end
end
