# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

class PlanTest < Minitest::Test
  cover "Arena::Load::Settings*"
  cover "Arena::Load::SETTING*"

  MACHINE = Arena::Plan::Machine.new(cores: 2).freeze

  def build(*argv) = Arena::TestHelp.plan(*argv, machine: MACHINE)

  def test_server_list_with_settings
    plan = build("--servers", "puma:workers=2,threads=5 unicorn:workers=3", "-c", "8", "-d", "2")
    assert_equal ["puma:workers=2,threads=5,preload=false", "unicorn:workers=3,preload=true,timeout=60"], plan.servers.map(&:label)
    assert_equal 8, plan.load.connections
    assert_equal 2.0, plan.load.duration
    assert plan.frozen?
  end

  def test_defaults_are_sized_to_the_machine
    plan = build("--servers", "puma")
    assert_equal 2, plan.servers.first.settings["workers"]
    assert_equal 5, plan.servers.first.settings["threads"]
    assert_equal %w[server], plan.workloads.map(&:name)
    assert_equal ["steady"], plan.scenarios
    assert_equal "1", MACHINE.engine_cpus
    assert_equal "0", MACHINE.server_cpus
  end

  def test_keep_alive_both_gives_two_modes
    assert_equal [true, false], build("--servers", "puma", "--keep-alive", "both").load.keep_alive_modes
  end

  def test_each_scenario_says_how_many_measurements_it_makes
    plan = build("--servers", "puma:workers=2 webrick", "--keep-alive", "both", "--step", "100", "--max-connections", "350")
    puma, webrick = plan.servers
    planned = ->(name, adapter) { Arena::Scenarios.fetch(name).new.planned(plan.load, adapter) }
    # breakpoint: 1, 2, 4, ..., 64 below the step, then 100, 200, 300
    assert_equal [2, 9, 10, 1, 2, 2], %w[steady rate breakpoint crash restart slow-clients].map { |n| planned.call(n, puma) }
    assert_equal 0, planned.call("restart", webrick), "no mechanism, no measurement"
  end

  def test_bad_input_fails_with_a_usage_error
    {
      ["--servers", "nginx-unit"] => /unknown server "nginx-unit"/,
      ["--servers", "puma:threads=many"] => /threads must be a whole number/,
      ["--servers", "puma:turbo=1"] => /unknown setting "turbo"/,
      ["--servers", "puma:workers"] => /NAME=VALUE/,
      ["--servers", "puma", "--workload", "nope"] => /unknown workload "nope"/,
      ["--servers", "puma", "--scenario", "chaos-monkey"] => /unknown scenario "chaos-monkey"/,
      ["--servers", "puma", "-c", "0"] => /-c must be between 1 and 20000/,
      ["--servers", "puma", "-d", "soon"] => /-d must be a number/,
      ["--servers", "puma", "--keep-alive", "maybe"] => /--keep-alive must be one of on, off, both/,
      ["--servers", "webrick", "--bind", "unix"] => /webrick cannot listen on a unix socket/,
      ["--app", "/nonexistent/config.ru"] => /no such app or rackup file/
    }.each do |argv, message|
      error = assert_raises(Arena::UsageError, argv.inspect) { build(*argv) }
      assert_match message, error.message
    end
  end

  def test_user_app_workloads_are_paths_with_expectations
    Dir.mktmpdir do |dir|
      File.write(File.join(dir, "config.ru"), "run ->(_) { [200, {}, []] }\n")
      File.write(File.join(dir, "Gemfile"), "")
      plan = build("--app", File.join(dir, "config.ru"), "--servers", "puma", "--workload", "/,/health=204,/hi=200:hello")
      assert_equal [["/", 200, nil], ["/health", 204, nil], ["/hi", 200, "hello"]],
        plan.workloads.map { |w| [w.path, w.expect_status, w.expect_body] }
      refute plan.app.builtin
    end
  end
end
