# frozen_string_literal: true

require_relative "../support/format"
require_relative "confirmation"

module Arena
  module Tune
    # What a tune had no time or means for, said under its answer ("not done
    # in time: ..."): each entry what it is about (a server, the head to head,
    # the baseline, the confirmation) and why. The phases build it; it is put
    # into words here only (#lines). A value: + makes a new one.
    class NotDone
      # joint: what stands between what and why (": " after a name, " " in a sentence).
      Entry = Struct.new(:what, :why, :joint, keyword_init: true) do
        def to_s = "#{what}#{joint}#{why}"
      end

      attr_reader :entries

      def initialize(entries = [])
        @entries = entries.dup.freeze
        freeze
      end

      def +(other) = NotDone.new(entries + other.entries)

      def empty? = entries.empty?

      def ==(other) = other.is_a?(NotDone) && entries == other.entries

      # The sentences, in the order the phases found them.
      def lines = entries.map(&:to_s)

      def self.of(what, why, joint: ": ") = new([Entry.new(what: what, why: why, joint: joint).freeze])

      # A server whose start no look reached.
      def self.not_looked(key) = of(key, "not looked at (no time left)")

      # A server whose search ran out of its time after `configs` configs.
      def self.search_stopped(key, configs) = of(key, "its search stopped at the time limit after #{configs} configs")

      # A server left at its start (Triage.why_not says why).
      def self.not_searched(key, why) = of(key, "not searched beyond its start (#{why})")

      # A finalist left out of the head to head.
      def self.not_finalist(key, finalists:, rps:)
        of(key, "not in the head to head (#{finalists} finalists; it sustained #{Support::Format.rps(rps)} req/s)")
      end

      def self.head_to_head(ran, of:) = of("the head to head", "ran #{ran} of #{of} rounds", joint: " ")

      # The app's own server config, which could not be installed.
      def self.baseline(words, why) = of("the baseline #{words}", "not installed (#{why})")

      # What the confirmation did not do: too few rounds counted, rounds read off the machine's speed.
      def self.confirmation(result)
        counted = result.counted.size
        notes = NotDone.new
        notes += of("the confirmation", "counted #{counted} of #{Confirmation::MIN_ROUNDS} rounds", joint: " ") if counted < Confirmation::MIN_ROUNDS
        return notes if result.flagged.empty?
        kept = result.flagged_kept? ? "kept: too few rounds without them" : "left out"
        notes + of("confirmation rounds #{result.flagged.join(", ")}", "read the machine >15% off its median speed: #{kept}", joint: " ")
      end
    end
  end
end
