# frozen_string_literal: true

require "test_helper"
require "arena"
require "arena/tune"

module Arena
  # The answer from head-to-head figures of known truth: who, by how much
  # with its interval, the tie broken by memory, what would change it, and
  # the same words for the terminal (last) and the report (first).
  class TuneAnswerTest < Minitest::Test
    cover "Arena::Tune::Answer*"

    def entry(key, rates, pss_mib:, p99_ms:, settings: {}, failed: nil)
      adapter = Servers.fetch(key).new(settings: settings, machine: Machine.new(cores: 2))
      candidate = Tune::Candidate.new(settings: settings, sustained_rps: rates.sum / rates.size, pss_kb: pss_mib * 1024, p99_ms: p99_ms, status: "ok", rates: [1.0])
      Tune::HeadToHead::Entry.new(key: key, adapter: adapter, candidate: candidate, rates: rates, failed: failed)
    end

    FILES = {"puma" => {path: "/r/tune/puma/puma.rb", command: %w[bundle exec puma -C puma.rb config.ru]},
             "falcon" => {path: "/r/tune/falcon/falcon.rb", command: %w[bundle exec falcon host falcon.rb]}}.freeze

    def decide(entries, **kw)
      Tune::Answer.decide(entries: entries, files: FILES, versions: {"puma" => "6.4.2"}, slos: {"puma" => 120.0, "falcon" => 130.0},
        memory_mib: 1500.0, **kw)
    end

    # Puma 10% ahead in every round (drift shared): a real lead with its interval.
    def test_a_lead_beyond_the_noise
      drift = [1.0, 0.8, 1.2, 0.9, 1.1]
      own = [1.01, 0.99, 1.02, 0.985, 1.0]
      a = decide([entry("falcon", drift.zip(own).map { |d, o| 100 * d * o }, pss_mib: 200, p99_ms: 8.0, settings: {"count" => 2}),
        entry("puma", drift.map { |d| 110 * d }, pss_mib: 400, p99_ms: 12.0, settings: {"workers" => 2, "threads" => 4})])
      assert_equal ["puma", "ahead", "falcon"], [a.server, a.verdict, a.runner_up]
      assert_in_delta 1.099, a.ratio, 0.001
      assert_operator a.interval[0], :<, a.ratio
      assert_operator a.interval[1], :>, a.ratio
      rec = a.to_record
      assert_equal %w[server settings runtime version command config_file runner_up ratio interval verdict rounds significance slo_ms memory_mib changes not_done out],
        rec.keys
      assert_equal({"server" => "falcon", "settings" => {"count" => 2, "model" => "forked"}}, rec["runner_up"])
      assert_equal %w[bundle exec puma -C puma.rb config.ru], rec["command"]
      lines = a.lines
      assert_equal "THE ANSWER: puma 6.4.2 with workers=2 threads=4 preload=false, runtime default", lines[0]
      assert_includes lines, "  start: bundle exec puma -C puma.rb config.ru"
      assert_includes lines, "  config file: /r/tune/puma/puma.rb"
      assert_match(/\A  margin: \+9\.9% over falcon count=2 model=forked \(95% interval \+\d\.\d% to \+\d+\.\d%, 5 paired rounds\)\z/, lines.grep(/margin/).first)
      assert_includes lines, "  held to: p99 <= 120.0 ms, < 1% errors, PSS <= 1500.0 MiB (the memory budget)"
      assert_includes lines, "  would change it: a memory budget under 400.0 MiB would pick falcon (PSS 200.0 MiB); " \
        "a p99 objective under 12.0 ms would pick falcon (p99 8.0 ms at its sustained rate)"
    end

    # A server Arena's overlay added beside the app's bundle cannot be
    # deployed from the config file alone: the answer says to add its gem
    # (the Rails fixture's answer was Iodine, which its Gemfile lacks).
    def test_a_server_the_overlay_added_names_the_gem_to_add
      drift = [1.0, 0.8, 1.2, 0.9, 1.1]
      entries = [entry("falcon", drift.map { |d| 100 * d }, pss_mib: 200, p99_ms: 8.0), entry("puma", drift.map { |d| 110 * d }, pss_mib: 400, p99_ms: 12.0)]
      a = decide(entries, gems: {"puma" => ["puma", "6.4.2"], "falcon" => ["falcon", "0.51.1"]})
      assert_includes a.lines, "  Gemfile: add gem \"puma\", \"6.4.2\" (Arena ran it from its overlay beside your bundle; your Gemfile is unchanged)"
      assert_equal({"name" => "puma", "version" => "6.4.2"}, a.to_record["gem"])
      plain = decide(entries, gems: {"falcon" => ["falcon", "0.51.1"]})
      assert_empty plain.lines.grep(/Gemfile/), "puma in the app's bundle"
      assert_nil plain.to_record["gem"]
    end

    # The same figures but for noise: equivalent within ±3%, and the one with
    # less memory is the answer though its median is a shade lower.
    def test_equivalent_configs_go_to_less_memory
      a = decide([entry("puma", [100.0, 101, 99, 100, 100.5], pss_mib: 400, p99_ms: 12.0),
        entry("falcon", [99.8, 100.9, 99.1, 99.7, 100.3], pss_mib: 200, p99_ms: 8.0)])
      assert_equal ["falcon", "equivalent", "puma"], [a.server, a.verdict, a.runner_up]
      assert_match(/margin: equivalent to puma .* within ±3% .*: falcon uses less memory/, a.lines.join("\n"))
      assert_equal ["no smaller memory budget: falcon uses the least memory of the finalists (PSS 200.0 MiB)"], a.changes
    end

    def test_a_lead_the_rounds_cannot_confirm
      a = decide([entry("puma", [110.0, 90, 120, 95, 105], pss_mib: 400, p99_ms: 12.0),
        entry("falcon", [100.0, 105, 98, 101, 99], pss_mib: 200, p99_ms: 8.0)])
      assert_equal ["puma", "not distinguishable"], [a.server, a.verdict]
      assert_match(/not distinguishable here/, a.margin_words)
    end

    def test_a_finalist_that_failed_is_out_with_its_reason_and_what_was_not_done_is_said
      a = decide([entry("puma", [100.0, 101, 99], pss_mib: 400, p99_ms: 12.0),
        entry("falcon", [100.0], pss_mib: 200, p99_ms: 8.0, failed: "did not start: [BUG] Segmentation fault")],
        not_done: ["uwsgi: not searched (no time left)"])
      assert_equal ["puma", "only", nil], [a.server, a.verdict, a.runner_up]
      assert_includes a.lines, "  not in the answer: falcon: did not start: [BUG] Segmentation fault"
      assert_equal "  not done in time: uwsgi: not searched (no time left)", a.lines.last
      assert_nil a.ratio
    end

    def test_no_answer
      a = decide([], out: {"agoo" => "no config qualified"})
      refute a.found?
      assert_equal ["THE ANSWER: none: no server held a rate within the SLO and the memory budget", "  not in the answer: agoo: no config qualified"], a.lines
      assert_nil a.to_record["server"]
    end
  end
end
