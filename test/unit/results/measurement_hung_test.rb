# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# Issue 45: a server that answered 1 request in 10 s, with 31 of 32
# connections hung, read 0% errors and, the only server, was "picked",
# wherever in the run its one answer fell (the silent-end rule saw only an
# answer in the first second). In a closed loop the answered requests'
# latencies add up to the time connections were served: under half the run
# on a single connection, with requests in flight, the server hung.
class HungServerTest < Minitest::Test
  R = Arena::Results

  def engine(answer_at:, timeline: true, mean: nil, completed: 1, sent: 33, model: "closed")
    latency = {"count" => completed, "p50" => 900, "mean" => mean}.compact
    h = {"schema" => "arena-load/2", "model" => model, "duration_s" => 10.0, "throughput_rps" => completed / 10.0,
         "connections" => {"requested" => 32, "opened" => 32}, "requests" => {"sent" => sent, "completed" => completed},
         "latency_us" => latency, "good" => {"completed" => completed, "rps" => completed / 10.0, "latency_us" => latency}}
    h["timeline"] = (0..9).map { |t| {"t" => t, "completed" => (t == answer_at) ? completed : 0, "errors" => 0} } if timeline
    h
  end

  def pick_of(raw)
    measurements = (1..3).map { |round| {"server" => "hung", "workload" => "server", "scenario" => "steady", "variant" => "keep-alive", "repeat" => round, "load" => raw} }
    Arena::Report::Recommend.new(R::Document.from_h({"measurements" => measurements})).call.first.pick
  end

  def test_one_answer_anywhere_in_the_run_with_the_rest_hung_is_unanswered_and_never_picked
    [[0, true], [5, true], [9, true], [nil, false]].each do |at, timeline|
      raw = engine(answer_at: at, timeline: timeline)
      load = R::LoadFigures.from_h(raw)
      assert load.unanswered?, "answer at #{at.inspect}, timeline #{timeline}"
      assert_operator load.error_pct, :>, 90.0, "its hung requests are failed, not 0%"
      assert_includes R::Summary.of(load).flags, "unanswered"
      assert_nil pick_of(raw), "answer at #{at.inspect}: hung, never picked"
    end
  end

  # A slow server is not a hung one: one slot of 1 s with 32 connections
  # answered 9 requests in 10 s, 22 still queued at the end (latencies 1 to
  # 9 s, mean 5 s): its slot was busy the whole run.
  def test_a_slow_server_whose_answers_fill_the_run_is_not_hung
    slow = R::LoadFigures.from_h(engine(answer_at: 9, completed: 9, sent: 41, mean: 5_000_000).tap { |h|
      h["timeline"] = (0..9).map { |t| {"t" => t, "completed" => t.zero? ? 0 : 1, "errors" => 0} }
    })
    refute slow.unanswered?
    # Agoo's stalled tail: a mean of 19 ms over 3,348 answers is 64 s of connections served.
    refute R::LoadFigures.from_h(engine(answer_at: 9, completed: 3348, sent: 3380, mean: 19_100).tap { |h| h.delete("timeline") }).unanswered?
    # An open model idles between arrivals by design.
    refute R::LoadFigures.from_h(engine(answer_at: 9, model: "open")).unanswered?
    # Nothing in flight: the loop was not waiting on the server.
    refute R::LoadFigures.from_h(engine(answer_at: 9, sent: 1)).unanswered?
  end
end
