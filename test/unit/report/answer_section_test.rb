# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "json"
require "tmpdir"

# A tune's report leads with its answer, built from tune.json's answer
# record, not the terminal's lines pasted (issue 45), and nothing on the
# page contradicts it: the run-level use-case picks, from the search's
# unpaired figures, are left out.
class ReportAnswerTest < Minitest::Test
  FIXTURE = File.expand_path("../../fixtures/results/steady", __dir__)

  RECORD = {"server" => "iodine:workers=2,threads=4", "settings" => {"workers" => 2, "threads" => 4}, "version" => "0.7.60",
            "command" => %w[bundle exec iodine -w 2 -t 4 config.ru], "config_file" => "/tmp/x/iodine.sh",
            "runner_up" => {"server" => "iodine:workers=2,threads=8", "settings" => {"workers" => 2, "threads" => 8}},
            "ratio" => 1.083, "interval" => [1.041, 1.127], "verdict" => "ahead", "rounds" => 8, "slo_ms" => 100, "memory_mib" => 17800,
            "baseline" => {"config" => "puma threads=3 (config/puma.rb)", "ratio" => 2.41, "interval" => [2.2, 2.63]},
            "changes" => ["a memory budget under 47.2 MiB would pick agoo"], "not_done" => [], "out" => {"webrick" => "stalled"}}.freeze

  def render_in(dir, answer)
    File.write(File.join(dir, "tune.json"), JSON.generate({"schema" => "arena-tune/1", "answer" => answer}))
    FileUtils.cp(File.join(FIXTURE, "results.json"), dir)
    source = Arena::Report::Source.open(dir)
    Arena::Report::Files.new(dir: dir, err: StringIO.new).write(source.view, answer: ["THE ANSWER: pasted terminal text"])
    [File.read(File.join(dir, "report.html")), File.read(File.join(dir, "report.md"))]
  end

  def test_the_answer_is_a_designed_section_from_the_record_and_nothing_contradicts_it
    Dir.mktmpdir do |dir|
      html, md = render_in(dir, RECORD)
      assert_includes html, %(<p class="headline">iodine 0.7.60 with workers=2 threads=4</p>)
      assert_includes html, "<dt>against the runner-up</dt><dd>1.08× the goodput of iodine workers=2 threads=8 (1.04–1.13), 8 paired rounds</dd>"
      assert_includes html, "<dt>against what you run today</dt><dd>2.41× the goodput of puma threads=3 (config/puma.rb) (2.20–2.63)</dd>"
      assert_includes html, "<dt>start it with</dt><dd><code>bundle exec iodine -w 2 -t 4 config.ru</code></dd>"
      refute_includes html, "pasted terminal text"
      refute_includes html, "<pre>"
      refute_includes html, %(id="recommendations"), "no use-case picks from the search's unpaired figures"
      assert_operator html.index(%(id="answer")), :<, html.index(%(id="results"))
      assert_operator html.index(%(id="results")), :<, html.index(%(id="findings"))
      assert_operator html.index(%(id="findings")), :<, html.index(%(id="detail"))
      assert_match(/\A# Arena report\n.*\n## The answer\n\n\*\*iodine 0\.7\.60 with workers=2 threads=4\*\*\n/m, md)
      assert_includes md, "- against the runner-up: 1.08× the goodput of iodine workers=2 threads=8 (1.04–1.13), 8 paired rounds\n"
      refute_includes md, "## The pick"
    end
  end

  # `arena report` of a tune's directory ends with its answer, not the search's picks.
  def test_the_terminal_report_of_a_tune_ends_with_its_answer
    Dir.mktmpdir do |dir|
      render_in(dir, RECORD)
      out = StringIO.new
      assert_equal 0, Arena::CLI.new(["report", dir, "--format", "terminal"], out: out, err: StringIO.new).run
      assert_match(/\n\nthe answer: iodine 0\.7\.60 with workers=2 threads=4\n  against what you run today: 2\.41× .*\n  against the runner-up: 1\.08× .*\n\z/, out.string)
      refute_match(/pick/, out.string)
    end
  end

  # The confirmation rounds said to keep the baseline: the page says so
  # first, as the terminal does, with the best other config's reading and
  # the figures they were measured at; it never heads the page with that config.
  def test_keep_what_you_run_heads_the_page_when_the_rounds_say_so
    keep = RECORD.merge("keep" => true, "baseline" => RECORD["baseline"].merge("ratio" => 1.16, "interval" => [0.95, 1.43], "verdict" => "keep what you run"),
      "figures" => {"rps" => 1049.5, "p99_ms" => 23.71, "pss_mib" => 63.31, "speed_range" => [0.894, 1.11]},
      "measured_on" => "on 1 of 2 cores, 23.6 GiB: 1 process per core, 4 threads each")
    Dir.mktmpdir do |dir|
      html, md = render_in(dir, keep)
      assert_includes html, %(<p class="headline">Keep what you run: puma threads=3 (config/puma.rb)</p>)
      assert_includes html, "<dt>the best other config</dt><dd>iodine 0.7.60 with workers=2 threads=4: 1.16× the goodput of what you run (0.95–1.43), not clear of it</dd>"
      assert_includes html, "<dt>its figures</dt><dd>1050 req/s closed-loop, p99 23.7 ms, PSS 63.3 MiB; at 0.89–1.11× the machine&#39;s median speed</dd>"
      assert_includes html, "<dt>measured on</dt><dd>on 1 of 2 cores, 23.6 GiB: 1 process per core, 4 threads each</dd>"
      assert_includes md, "**Keep what you run: puma threads=3 (config/puma.rb)**"
      assert_includes html, "PSS ≤ 17800 MiB"
      assert_includes html, "<dt>the best other config starts with</dt>"
      html, = render_in(dir, keep.merge("baseline" => keep["baseline"].except("ratio", "interval")))
      assert_includes html, "<dt>the best other config</dt><dd>iodine 0.7.60 with workers=2 threads=4: the rounds could not compare it with what you run</dd>"
    end
  end

  def test_a_tie_and_an_answer_without_a_baseline
    Dir.mktmpdir do |dir|
      html, = render_in(dir, RECORD.merge("verdict" => "equivalent", "ratio" => 1.01, "interval" => [0.99, 1.03]).except("baseline"))
      assert_includes html, "<dd>~ same as iodine workers=2 threads=8 (1.01× (0.99–1.03), 8 paired rounds); it uses less memory</dd>"
      refute_includes html, "against what you run today"
    end
  end

  def test_a_run_without_a_tune_has_its_pick_first
    Dir.mktmpdir do |dir|
      FileUtils.cp(File.join(FIXTURE, "results.json"), dir)
      Arena::Report::Files.new(dir: dir, err: StringIO.new).write(Arena::Report::Source.open(dir).view)
      html = File.read(File.join(dir, "report.html"))
      refute_includes html, %(id="answer")
      assert_operator html.index(%(id="recommendations")), :<, html.index(%(id="results"))
    end
  end
end
