# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/arena_case"
require "arena"
require "timeout"

# `arena run` in a directory holding arena.yml: the file's plan, a flag over
# it, and the merged plan in results.json.
class ConfigFileRunTest < Arena::ArenaCase
  def test_run_uses_arena_yml_with_flags_over_it_and_records_the_merged_plan
    File.write(File.join(@tmp, "arena.yml"), <<~YAML)
      servers:
        - puma: {workers: 0, threads: 2}
      workloads: [server]
      rounds: 1
      load:
        connections: 2
        duration: 0.3
        warmup: 0
      headers:
        X-Arena-Test: from-the-file
      out: results
    YAML
    stdout, stderr, status = Timeout.timeout(120) { Open3.capture3(EXE, "run", "-c", "3", chdir: @tmp) }
    assert status.success?, "exit #{status.exitstatus}\n#{stdout}\n#{stderr}"
    results = JSON.parse(File.read(File.join(@tmp, "results/results.json")))
    plan = results.fetch("plan")
    assert_equal ["puma:workers=0,threads=2,preload=false"], plan.fetch("servers").map { |s| s["label"] }
    assert_equal ["server"], plan.fetch("workloads").map { |w| w["name"] }
    assert_equal [3, 0.3, 0.0], plan.fetch("load").values_at("connections", "duration", "warmup")
    assert_equal({"X-Arena-Test" => "from-the-file"}, plan.fetch("headers"))
    measured = results.fetch("measurements").reject { |m| m["kind"] == "summary" }
    assert_equal 1, measured.size
    assert_equal 3, measured.first.dig("load", "connections", "requested") || measured.first.dig("load", "connections")
    # Into a pipe: one plain progress line, no line per measurement; the picks are the last thing printed.
    assert_includes stderr.lines, "arena: measuring · round 1/1 · puma:workers=0,threads=2 · 1/1 measured\n"
    refute_match(/good req\/s, p99/, stderr)
    assert_match(/\n\n(.*: (pick|no pick).*\n)*not measured: \d use cases \(report\.md says what runs them\)\n\z/, stdout)
  end
end
