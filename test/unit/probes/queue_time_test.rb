# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "open3"
require "json"

# Queue time apart from service time: the wrapper's counts and their split.
class QueueTimeTest < Minitest::Test
  def bucket(us) = (Math.log2(us) * Arena::Probes::QueueTime::PER_OCTAVE).floor

  def test_the_split_is_the_growth_of_the_counts_over_the_measurement
    before = {"queue" => {bucket(100) => 50}, "work" => {bucket(2000) => 50}}
    after = {"queue" => {bucket(100) => 148, bucket(40_000) => 2}, "work" => {bucket(2000) => 50, bucket(50_000) => 100}}
    split = Arena::Probes::QueueTime::Split.of(before, after)
    assert_equal 100, split.n
    assert_in_delta 100, split.queue_p50_us, 4
    assert_in_delta 40_000, split.queue_p99_us, 40_000 * 0.04
    assert_in_delta 50_000, split.work_p50_us, 50_000 * 0.04
    # Means, which add up (the stall rule sums them): 98 x 100 us + 2 x 40 ms.
    assert_in_delta (98 * 100 + 2 * 40_000) / 100.0, split.queue_mean_us, 900 * 0.04
    assert_in_delta 50_000, split.work_mean_us, 50_000 * 0.04
    assert_nil Arena::Probes::QueueTime::Split.of(before, before), "nothing served: no split"
  end

  # The wrapper loaded as a server loads it (RUBYOPT=-r), around a
  # Rack::Builder app, read as a measurement reads it: right after the last
  # request, without waiting out a fixed pause.
  # --queue-time on times a sample, all every request, off loads no wrapper;
  # the mode reaches the wrapper through a file it reads each period.
  def test_the_modes_and_the_file_that_carries_them
    assert_equal "h", Arena::Probes::QueueTime.every("on"), "the requests that carry the header"
    assert_equal :warmup, Arena::Probes::QueueTime.header_every("on"), "the warm-up's requests"
    assert_equal [1, nil], [Arena::Probes::QueueTime.header_every("all"), Arena::Probes::QueueTime.header_every("off")]
    assert_equal 1, Arena::Probes::QueueTime.every("all")
    assert_nil Arena::Probes::QueueTime.every("off")
    Dir.mktmpdir("arena-mode") do |dir|
      Arena::Probes::QueueTime.write_mode(dir, 16)
      assert_equal "16", File.read(File.join(dir, "mode"))
      assert_equal ["mode"], Dir.children(dir), "written whole, by a rename"
    end
  end

  def test_the_wrapper_times_the_app_and_leaves_its_answer_alone
    Dir.mktmpdir("arena-timing") do |dir|
      script = <<~RUBY
        require "rack"
        app = Rack::Builder.new { map("/x") { run ->(env) { sleep 0.02; [200, {"x" => "y"}, ["ok"]] } } }.to_app
        sent = Process.clock_gettime(Process::CLOCK_REALTIME, :microsecond) - 5000
        3.times { p app.call(Rack::MockRequest.env_for("/x", "HTTP_X_REQUEST_START" => "t=\#{sent}")) && nil }
        app.call(Rack::MockRequest.env_for("/x", "HTTP_X_REQUEST_START" => "t=0000000000000000"))
        status, headers, body = app.call(Rack::MockRequest.env_for("/x"))
        puts [status, headers["x"], body.to_a.join].inspect
        $stdout.flush
        sleep 5
      RUBY
      env = Arena::Probes::QueueTime.env(dir, {}).merge("BUNDLE_GEMFILE" => File.expand_path("../../../Gemfile", __dir__))
      Open3.popen3(env, "bundle", "exec", "ruby", "-e", script) do |_in, out, err, wait|
        answer = out.each_line.find { |line| line.start_with?("[") }
        assert_includes answer.to_s, '[200, "y", "ok"]', "the app's answer passes unchanged: #{err.read unless wait.alive?}"
        ended = Time.now
        split = Arena::Probes::QueueTime::Files.new(dir).since({"queue" => {}, "work" => {}}, ended_at: ended)
        waited = Time.now - ended
        assert_equal 1, Dir.glob(File.join(dir, "*.json")).size
        assert_equal 5, split&.n, "each request counted once (the inner map's app is not wrapped again), all of them read"
        assert_equal 3, split.queue_n, "waiting only where X-Request-Start came with a time (not the engine's placeholder zeros)"
        assert_operator split.work_p50_us, :>=, 19_000
        assert_operator split.queue_p50_us, :>=, 4_500
        assert_operator waited, :<, Arena::Probes::QueueTime::Files::WAIT_S, "read once the busy process wrote, not at the longest wait"
        # Idle since: it only touches its file, which is enough not to be waited for.
        sleep 0.2
        idle = Time.now
        again = Arena::Probes::QueueTime::Files.new(dir).since(Arena::Probes::QueueTime::Files.new(dir).snapshot, ended_at: idle)
        assert_nil again, "nothing new"
        assert_operator Time.now - idle, :<, Arena::Probes::QueueTime::Files::WAIT_S, "an idle live process is not waited for"
      ensure
        Process.kill("TERM", wait.pid) if wait.alive?
      end
    end
  end
end
