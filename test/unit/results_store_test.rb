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
end
