# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# How slow the app is (lib/arena/plan/pace.rb): the rule on the probe's
# document, and the probe itself on a Rack app made for the purpose.
class PaceTest < Minitest::Test
  Pace = Arena::Plan::Pace

  def doc = {"boot_s" => 6.2, "paths" => [{"path" => "/issues", "status" => 200, "ms" => 52.0, "cpu_ms" => 48.0},
    {"path" => "/projects", "status" => 200, "ms" => 12.0, "cpu_ms" => 10.0}, {"path" => "/boom", "status" => 500, "ms" => 1.0}]}

  def test_the_reading_is_the_weighted_mean_of_the_paths_that_answered_below_500
    r = Pace.reading(doc, [[3.0, "/issues"], [1.0, "/projects"], [5.0, "/boom"]])
    assert_equal [6.2, 42.0, 38.5], [r.boot_s, r.service_ms, r.cpu_ms]
    assert_in_delta 1000.0 / 38.5, r.rps_per_core, 0.001, "a core's bound is its CPU per request"
  end

  def test_no_answer_below_500_is_no_reading
    assert_nil Pace.reading(doc, [[1.0, "/boom"]])
    assert_nil Pace.reading({"paths" => []}, [[1.0, "/issues"]])
  end

  def test_the_wall_time_stands_when_no_cpu_time_was_read
    r = Pace::Reading.new(boot_s: 1.0, service_ms: 20.0, cpu_ms: 0.0)
    assert_equal 50.0, r.rps_per_core
  end

  def test_only_a_workload_of_gets_is_paced
    get = Arena::Plan::Workloads.custom("/a")
    assert_equal [[1.0, "/a"]], Pace.paths(get)
    assert_nil Pace.paths(get.dup.tap { |w| w.method = "POST" })
  end

  # The probe in a process of its own, on an app whose one path spins for
  # ~20 ms of CPU: the pace reads it, and the boot.
  def test_the_probe_times_a_slow_path_in_process
    Dir.mktmpdir do |dir|
      File.write(File.join(dir, "config.ru"), <<~RU)
        spin = ->(s) { t = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID); nil while Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) - t < s }
        run ->(env) { spin.(env["PATH_INFO"] == "/slow" ? 0.02 : 0.0); [200, {"content-type" => "text/plain"}, ["ok"]] }
      RU
      File.write(File.join(dir, "Gemfile"), %(gem "rack"\n))
      app = Arena::Bundle::AppSource.new(rackup: File.join(dir, "config.ru"), dir: dir, gemfile: File.join(Arena::ROOT, "Gemfile"),
        app_gemfile: File.join(Arena::ROOT, "Gemfile"), builtin: false, env: {})
      reading, why = Pace.new(app: app, dir: dir).call(Arena::Plan::Workloads.custom("/slow"))
      assert_nil why
      assert_in_delta 20.0, reading.cpu_ms, 5.0
      assert_operator reading.service_ms, :>=, reading.cpu_ms * 0.9
      assert_operator reading.boot_s, :<, 30.0
    end
  end
end
