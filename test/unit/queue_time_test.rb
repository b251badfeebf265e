# frozen_string_literal: true

require_relative "../test_helper"
require "arena"
require "open3"
require "json"

# Queue time apart from service time: the wrapper's counts and their split.
class QueueTimeTest < Minitest::Test
  def bucket(us) = (Math.log2(us) * Arena::QueueTime::PER_OCTAVE).floor

  def test_the_split_is_the_growth_of_the_counts_over_the_measurement
    before = {"queue" => {bucket(100) => 50}, "work" => {bucket(2000) => 50}}
    after = {"queue" => {bucket(100) => 148, bucket(40_000) => 2}, "work" => {bucket(2000) => 50, bucket(50_000) => 100}}
    split = Arena::QueueTime::Split.of(before, after)
    assert_equal 100, split.n
    assert_in_delta 100, split.queue_p50_us, 4
    assert_in_delta 40_000, split.queue_p99_us, 40_000 * 0.04
    assert_in_delta 50_000, split.work_p50_us, 50_000 * 0.04
    assert_nil Arena::QueueTime::Split.of(before, before), "nothing served: no split"
  end

  # The wrapper loaded as a server loads it (RUBYOPT=-r), around a Rack::Builder app.
  def test_the_wrapper_times_the_app_and_leaves_its_answer_alone
    Dir.mktmpdir("arena-timing") do |dir|
      script = <<~RUBY
        require "rack"
        app = Rack::Builder.new { map("/x") { run ->(env) { sleep 0.02; [200, {"x" => "y"}, ["ok"]] } } }.to_app
        sent = Process.clock_gettime(Process::CLOCK_REALTIME, :microsecond) - 5000
        3.times { p app.call(Rack::MockRequest.env_for("/x", "HTTP_X_REQUEST_START" => "t=\#{sent}")) && nil }
        status, headers, body = app.call(Rack::MockRequest.env_for("/x"))
        puts [status, headers["x"], body.to_a.join].inspect
        sleep 0.6
      RUBY
      env = Arena::QueueTime.env(dir, {}).merge("BUNDLE_GEMFILE" => File.expand_path("../../Gemfile", __dir__))
      out, err, status = Open3.capture3(env, "bundle", "exec", "ruby", "-e", script)
      assert status.success?, err
      assert_includes out, '[200, "y", "ok"]', "the app's answer passes unchanged"
      files = Dir.glob(File.join(dir, "*.json"))
      assert_equal 1, files.size
      split = Arena::QueueTime::Split.of({"queue" => {}, "work" => {}}, Arena::QueueTime::Files.new(dir).snapshot)
      assert_equal 4, split.n, "each request counted once: the inner map's app is not wrapped again"
      assert_equal 3, split.queue_n, "waiting only where X-Request-Start came"
      assert_operator split.work_p50_us, :>=, 19_000
      assert_operator split.queue_p50_us, :>=, 4_500
    end
  end
end
