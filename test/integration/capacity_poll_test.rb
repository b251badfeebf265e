# frozen_string_literal: true

# test: serial (Agoo at its poll under a crowded lane lost its config's measurements on a clean clone)

require_relative "../test_helper"
require_relative "../support/capacity_case"

# Agoo at its default poll_timeout (0.1 s), on the built-in app's /server
# (the app works microseconds), 16 connections (issue 45). What limits it,
# when it is limited, is its poll: its Ruby side takes requests from a queue
# that now and then misses a wake-up and waits out poll_timeout, so a round's
# p99 sits at the poll (101 ms in 2 of 3 and 4 of 6 rounds of a default run
# here) while its CPU and its slots idle. How often the wake-up is missed is
# not known in advance: on the capacity app's / a 2 s round missed none at 1
# and at 32 connections (p99 0.25 and 1.7 ms). So the known truth is the
# rule's against each round's figures, whatever the round did: a round whose
# p99 sits at the poll is flagged stalled, named 100 ms and by its setting
# (by the rule on time neither work nor queueing explains: no rule knows
# Agoo); a round that missed none is not; and at poll_timeout=0.01 no round's
# tail is a 100 ms stall. A run in which no round missed a wake-up says so
# and skips. The terminal's line speaks for the rounds its row keeps: a round
# read on a busy machine and run again gives way to its quiet re-run
# (Results::Rounds.one_per_round), so the line is asserted when a kept round
# sat at the poll.
class CapacityPollTest < Arena::CapacityCase
  POLL = "agoo:workers=2,threads=4,poll_timeout=0.1"
  SHORT = "agoo:workers=2,threads=4,poll_timeout=0.01"

  def test_agoos_poll_is_a_stall_named_by_its_length_and_moves_with_its_setting
    skip "agoo is not installed" unless configs.key?(POLL)
    # Agoo at poll_timeout=0.01 polls on an idle machine too, so it never
    # settles: each wait would run out the default 30 s. Settling is not
    # what this test is about. Kept up beside the other config, its polling
    # took 20-25% of a core, and every round of the other was flagged noisy:
    # each round starts the configs afresh, one at a time.
    out = arena("run", "--servers", "#{POLL} #{SHORT}", "--workload", "server", "-c", "16", "--rounds", "3",
      "--settle-timeout", "1", "--between-rounds", "restart", timeout: 180)
    assert out.status.success?, out.describe
    measured = Arena::Results::Document.load(File.join(out.dir, "results.json")).measured
    runs = measured.group_by(&:server)
    poll = runs.fetch(label(POLL)) { flunk "no measurement of #{POLL}: #{out.describe}" }
    p99 = ->(m) { m.summary&.p99_us.to_f }
    poll.select { |m| p99.call(m) < 20_000 }.each do |m|
      refute_match(/100 ms poll/, m.summary.stall.to_s, "a round that missed no wake-up: #{m.summary.to_h}")
    end
    runs.fetch(label(SHORT)) { flunk "no measurement of #{SHORT}: #{out.describe}" }.each do |m|
      refute_match(/100 ms poll/, m.summary&.stall.to_s, "poll_timeout=0.01: #{m.summary.to_h}")
    end
    # A round read while the machine was busy (flagged noisy) is run again at
    # its round's end; its tail may be the machine's, so the rule is held to
    # the quiet rounds. Of those at the poll, one whose connections all fell
    # on one worker (uneven: 4 of its 8 slots reachable) is not always called
    # stalled (in 2 of 3 such rounds of one run it was not), nor is every
    # stall's unexplained time close enough to 100 ms to be named by it. So
    # at least one is called stalled and named by the poll.
    at_poll = poll.select { |m| p99.call(m).between?(85_000, 130_000) }.reject { |m| m.flags.include?("noisy") }
    skip "no quiet round missed a wake-up (p99s #{poll.map { |m| [p99.call(m), m.flags] }})" if at_poll.empty?
    stalled = at_poll.select { |m| m.flags.include?("stalled") }
    refute_empty stalled, "no quiet round at the poll called stalled: #{at_poll.map { |m| m.summary.to_h }}\n#{out.describe}"
    assert stalled.any? { |m| m.summary.stall.to_s.match?(/ms unexplained .*100 ms poll interval or timer/) },
      "no stall named by the poll: #{stalled.map { |m| m.summary.stall }}"
    kept = Arena::Results::Rounds.one_per_round(poll)
    skip "no round the row keeps sat at the poll and was called stalled (a noisy one ran again without a stall)" if
      kept.none? { |m| m.load.latency.p99.to_f.between?(85_000, 130_000) && m.flags.include?("stalled") }
    assert_match(/^agoo\S*  stalled  p99 \d+ ms at \d+% CPU( in \d+ of \d+ runs)?: its 100 ms poll \(poll_timeout\)$/, out.stdout)
  end
end
