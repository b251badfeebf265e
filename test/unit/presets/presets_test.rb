# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# Each preset's plan at a given scale: servers and their settings, scenarios,
# workloads and the counts that --scale shrinks. Servers that cannot run here
# are skipped with a note, so the expected lists are filtered the same way.
class PresetsTest < Minitest::Test
  MACHINE = Arena::Plan::Machine.new(cores: 2).freeze

  def build(*argv) = Arena::TestHelp.plan(*argv, machine: MACHINE)

  def installed(labels, plan)
    skipped = plan.preset["skipped"].map { |note| note.split(":", 2).first }
    labels.reject { |label| skipped.any? { |name| label.start_with?(name) } }
  end

  def test_arena_2013_is_siege_reps_behind_nginx_and_scales_connections_and_repetitions
    plan = build("--preset", "arena-2013", "--scale", "0.1")
    assert_equal installed(["unicorn:workers=4,preload=true,timeout=60", "puma:workers=2,threads=16,preload=false",
      "thin:servers=4,threaded=false", "passenger:pool=6,queue=100,turbocaching=false"], plan), plan.servers.map(&:label)
    assert_equal %w[server pi sleep random], plan.workloads.map(&:name)
    assert_equal ["reps"], plan.scenarios
    assert_equal "nginx", plan.front
    assert_equal [10, 100, "off", 30.0], [plan.load.connections, plan.load.reps, plan.load.keep_alive, plan.load.timeout]
    full = build("--preset", "arena-2013", "--scale", "1")
    assert_equal [100, 1000], [full.load.connections, full.load.reps]
    assert_equal [2, 20], build("--preset", "arena-2013").load.to_h.values_at(:connections, :reps), "default scale 0.02"
  end

  def test_primes_2016_is_steady_both_keep_alive_modes_best_of_three
    plan = build("--preset", "primes-2016", "--scale", "0.1")
    assert_equal installed(["puma:workers=8,threads=32,preload=true", "passenger:pool=6,queue=100,turbocaching=false",
      "unicorn:workers=8,preload=true,timeout=60", "puma-jruby:threads=32"], plan), plan.servers.map(&:label)
    assert_equal ["primes"], plan.workloads.map(&:name)
    assert_equal ["steady"], plan.scenarios
    assert_equal [100, 3.0, [true, false], 3], [plan.load.connections, plan.load.duration, plan.load.keep_alive_modes, plan.repeat]
    assert_equal 30.0, build("--preset", "primes-2016", "--scale", "1").load.duration
    assert_equal 1.0, build("--preset", "primes-2016", "--scale", "0.01").load.duration, "a floor of one second"
    assert_nil plan.front
  end

  def test_ab_2015_counts_a_fixed_total_at_several_concurrencies
    plan = build("--preset", "ab-2015", "--scale", "0.1")
    assert_equal ["puma:workers=2,threads=1,preload=false", "puma:workers=2,threads=2,preload=false",
      "puma:workers=2,threads=16,preload=false", "unicorn:workers=2,preload=true,timeout=60"], plan.servers.map(&:label)
    assert_equal [["trial", "/trial?count=1000"], ["wait", "/sleep?ms=50"]], plan.workloads.map { |w| [w.name, w.path] }
    assert_equal ["count"], plan.scenarios
    assert_equal [10, [10, 25, 50], [false]], [plan.load.requests, plan.load.levels, plan.load.keep_alive_modes]
    assert_equal 100, build("--preset", "ab-2015", "--scale", "1").load.requests
    assert_equal 100, build("--preset", "ab-2015").load.requests, "default scale 1"
  end

  def test_breakpoint_nginx_steps_by_100_behind_nginx_with_a_body_check
    plan = build("--preset", "breakpoint-nginx", "--scale", "0.1")
    assert_equal installed(["unicorn:workers=4,preload=true,timeout=60", "thin:servers=4,threaded=false",
      "passenger:pool=4,queue=100,turbocaching=false"], plan), plan.servers.map(&:label)
    assert_equal ["breakpoint"], plan.scenarios
    assert_equal "nginx", plan.front
    ip = plan.workloads.first
    assert_equal ["ip", "/ip", "127.0.0.1"], [ip.name, ip.path, ip.expect_body]
    assert_equal [100, 200, 1.0, 60_000.0], plan.load.to_h.values_at(:step, :max_connections, :duration, :slo_ms)
    full = build("--preset", "breakpoint-nginx", "--scale", "1")
    assert_equal [100, 2000, 5.0, 600.0], full.load.to_h.values_at(:step, :max_connections, :duration, :max_time)
  end

  def test_siege_2014_runs_geminabox_at_5_and_25
    skip "geminabox bundle not installed (script/setup)" unless File.file?(File.join(Arena::ROOT, "presets/siege-2014/Gemfile.lock")) &&
      Arena::Bundle::Installation.gem("geminabox", Arena::Bundle::AppSource.user(File.join(Arena::ROOT, "presets/siege-2014/config.ru"))).found
    plan = build("--preset", "siege-2014", "--scale", "0.1")
    refute plan.app.builtin
    assert_equal File.join(Arena::ROOT, "presets/siege-2014/config.ru"), plan.app.rackup
    assert_equal ["unicorn:workers=5,preload=true,timeout=60", "puma:workers=5,threads=32,preload=false",
      "puma:workers=0,threads=32,preload=false"], plan.servers.map(&:label)
    assert_equal [["/", 200, "Gem in a Box"]], plan.workloads.map { |w| [w.path, w.expect_status, w.expect_body] }
    assert_equal [["reps"], 1, [5, 25]], [plan.scenarios, plan.load.reps, plan.load.levels]
    assert_equal 10, build("--preset", "siege-2014", "--scale", "1").load.reps
    skipped = plan.preset["skipped"]
    assert_equal 2, skipped.size
    assert_match(/\Apuma-jruby:threads=32: skipped, /, skipped[0])
    assert_match(/\Atorquebox: skipped, TorqueBox cannot be had/, skipped[1])
  end

  def test_tfb_rack_runs_the_six_test_types_on_its_own_app_and_database
    skip "the tfb-rack bundle is not installed (script/setup)" unless Arena::Bundle::Installation.gem("pg", Arena::Bundle::AppSource.user(File.join(Arena::ROOT, "presets/tfb-rack/config.ru"))).found
    plan = build("--preset", "tfb-rack")
    assert_equal File.join(Arena::ROOT, "presets/tfb-rack/config.ru"), plan.app.rackup
    assert_equal %w[json plaintext db queries fortunes updates], plan.workloads.map(&:name)
    assert_equal ["/queries?queries=20", "/updates?queries=20"], plan.workloads.map(&:path).grep(/queries=/)
    assert_equal ["postgres", ["steady"], 256, 3.0, 1], [plan.database.kind, plan.scenarios, plan.load.connections, plan.load.duration, plan.repeat]
    assert_equal installed(%w[puma unicorn falcon iodine pitchfork passenger], plan), plan.servers.map(&:key)
    # Without JRuby here it is "not installed"; with it, outside the app's bundle.
    assert_match(/\Apuma-jruby:threads=\d+: skipped, (not installed|it runs outside the app's bundle, where pg is not installed)/,
      plan.preset["skipped"].first)
    # A server named with --servers that the preset's bundle lacks is skipped with why, before anything starts.
    named = build("--preset", "tfb-rack", "--servers", "thin puma:workers=1")
    assert_equal ["puma:workers=1,threads=5,preload=false"], named.servers.map(&:label)
    assert_equal ["thin:servers=1,threaded=false: skipped, not installed (gem thin is not in Gemfile)"], named.preset["skipped"]
    # Its test types by name, as --workload gives them.
    assert_equal [["fortunes", "/fortunes"], ["db", "/db"]],
      build("--preset", "tfb-rack", "--workload", "fortunes,db").workloads.map { |w| [w.name, w.path] }
  end

  def test_flags_override_the_preset_and_the_plan_records_name_and_scale
    plan = build("-c", "7", "--preset", "primes-2016", "--scale", "0.5", "--servers", "puma:workers=0", "--keep-alive", "on")
    assert_equal ["puma:workers=0,threads=5,preload=false"], plan.servers.map(&:label)
    assert_equal [7, 15.0, [true]], [plan.load.connections, plan.load.duration, plan.load.keep_alive_modes]
    recorded = plan.to_h[:preset]
    assert_equal ["primes-2016", 0.5, "001_acf245167b555f6d.txt"], recorded.values_at("name", "scale", "seed")
    assert_nil build("--servers", "puma").to_h[:preset]
  end

  def test_bad_preset_input_is_a_usage_error
    {
      ["--preset", "nope"] => /unknown preset "nope" \(known: .*arena-2013.*primes-2016/,
      ["--preset", "ab-2015", "--scale", "0"] => /--scale must be greater than 0 and at most 1/,
      ["--preset", "ab-2015", "--scale", "1.5"] => /--scale must be greater than 0 and at most 1/,
      ["--servers", "puma", "--scale", "0.5"] => /--scale needs --preset/,
      ["--servers", "puma", "--levels", "10,x"] => /--levels takes whole numbers/
    }.each do |argv, message|
      error = assert_raises(Arena::UsageError, argv.inspect) { build(*argv) }
      assert_match message, error.message
    end
  end

  def test_every_preset_has_its_source_and_a_default_scale_in_range
    assert_equal %w[ab-2015 arena-2013 breakpoint-nginx primes-2016 siege-2014 tfb-rack], Arena::Presets.all.map(&:name).sort
    Arena::Presets.all.each do |preset|
      assert_operator preset.default_scale, :>, 0
      assert_operator preset.default_scale, :<=, 1
      refute_empty preset.finding
    end
  end

  # shared/ stands beside the repository (as in CI); a lone clone has none,
  # and the test says it skipped rather than passing on nothing.
  def test_every_preset_names_a_seed_that_exists
    seeds = File.expand_path("../../../shared/seeds", __dir__)
    skip "no shared/seeds beside the repository (#{seeds})" unless Dir.exist?(seeds)
    Arena::Presets.all.each do |preset|
      next assert_match(%r{\Ahttps://github\.com/TechEmpower/}, preset.seed) if preset.name == "tfb-rack" # rules, not a seed file
      assert File.file?(File.join(seeds, preset.seed)), "#{preset.name}: #{preset.seed} is not in #{seeds}"
    end
  end

  def test_count_scenario_reports_like_ab
    load = {"requests" => {"completed" => 100}, "errors" => {"total" => 0}, "duration_s" => 0.8,
            "latency_us" => {"mean" => 75_000, "p50" => 70_000, "p75" => 80_000, "p90" => 90_000, "p99" => 150_000, "max" => 160_000}}
    report = Arena::Scenarios::Count.ab_report(Arena::Results::LoadFigures.from_h(load), 10)
    assert_equal({"concurrency" => 10, "complete_requests" => 100, "failed_requests" => 0, "time_taken_s" => 0.8,
                  "requests_per_second" => 125.0, "time_per_request_ms" => 75.0, "median_ms" => 70.0, "p75_ms" => 80.0,
                  "p90_ms" => 90.0, "p99_ms" => 150.0, "longest_ms" => 160.0}, report)
  end

  def test_presets_command_lists_source_and_counts
    out = StringIO.new
    assert_equal 0, Arena::CLI.new(["presets"], out: out, err: StringIO.new).run
    text = out.string
    assert_match(/^arena-2013  \(seed 000_93218a399dd2707b.txt\)$/, text)
    assert_match(/at scale 0.02 \(default\): -c 2 -r 20 --keep-alive off/, text)
    assert_match(/at scale 1: -c 100 -r 1000/, text)
    assert_match(/^ab-2015 .*\n(.*\n)*  runs:      count; at scale 1.0 \(default\): --levels 10,25,50 -n 100/, text)
  end
end
