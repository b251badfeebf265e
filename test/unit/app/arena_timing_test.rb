# frozen_string_literal: true

require_relative "../../test_helper"
require "tmpdir"

# The timing wrapper's modes (app/arena_timing.rb), in this process: Arena
# says in ARENA_TIMING_DIR/mode how many requests to time, and a running
# server follows it within a period.
class ArenaTimingTest < Minitest::Test
  DIR = Dir.mktmpdir("arena-timing")
  unless defined?(::ArenaTiming)
    previous = ENV["ARENA_TIMING_DIR"]
    ENV["ARENA_TIMING_DIR"] = DIR
    load File.expand_path("../../../lib/arena/app/arena_timing.rb", __dir__)
    ENV["ARENA_TIMING_DIR"] = previous
    # Rack is loaded already here: nothing for the hook to wrap.
    ::ArenaTiming::HOOK.disable
  end

  APP = ->(_env) { [200, {}, ["ok"]] }

  def setup
    File.delete(mode_file) if File.exist?(mode_file)
    ::ArenaTiming.instance_variable_set(:@work, Hash.new(0))
    ::ArenaTiming.instance_variable_set(:@queue, Hash.new(0))
    ::ArenaTiming.instance_variable_set(:@seen, 0)
    ::ArenaTiming.instance_variable_set(:@every, 1)
  end

  def mode_file = File.join(::ArenaTiming::DIR, "mode")

  def timed(requests, mode: nil)
    File.write(mode_file, mode) if mode
    ::ArenaTiming.read_mode
    before = ::ArenaTiming.instance_variable_get(:@work).values.sum
    app = ::ArenaTiming.wrap(APP)
    requests.times { app.call({"HTTP_X_REQUEST_START" => "t=#{Process.clock_gettime(Process::CLOCK_REALTIME, :microsecond) - 100}"}) }
    ::ArenaTiming.instance_variable_get(:@work).values.sum - before
  end

  def test_without_a_mode_every_request_is_timed
    assert_equal 20, timed(20)
    assert_equal 20, ::ArenaTiming.instance_variable_get(:@queue).values.sum, "and its wait, from the header"
  end

  def test_mode_0_times_none_and_the_responses_are_untouched
    assert_equal 0, timed(20, mode: "0")
    assert_equal [200, {}, ["ok"]], ::ArenaTiming.wrap(APP).call({})
  end

  def test_mode_n_times_one_request_in_n
    assert_equal 5, timed(20, mode: "4")
    assert_equal 20, timed(20, mode: "1")
  end

  def test_a_bad_mode_leaves_the_last_one
    timed(1, mode: "4")
    File.write(mode_file, "fast please")
    ::ArenaTiming.read_mode
    assert_equal 4, ::ArenaTiming.every
  end

  # The writer thread reads the mode each period: a running server switches.
  def test_a_running_process_follows_the_mode_within_a_period
    timed(1, mode: "1")
    File.write(mode_file, "0")
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 2
    sleep 0.01 until ::ArenaTiming.every.zero? || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
    assert_equal 0, ::ArenaTiming.every
  end
end
