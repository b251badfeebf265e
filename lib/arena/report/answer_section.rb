# frozen_string_literal: true

require_relative "../support/format"
require_relative "../support/short"

module Arena
  module Report
    # `arena tune`'s answer as report.html and report.md show it first: built
    # from tune.json's answer record (Results::TuneAnswer), not from the
    # terminal's lines, so the page is designed and says no more nor less
    # than the record. Pure: the answer in, words out.
    class AnswerSection
      # One fact of the answer: what it is, its value in words, and whether
      # it is something to type (a command, a path, a Gemfile line).
      Fact = Struct.new(:name, :value, :code, keyword_init: true)

      def self.of(answer) = answer && new(answer)

      def initialize(answer)
        @a = answer
      end

      def found? = @a.found?

      # "iodine 0.7.60 with workers=2 threads=4", or "Keep what you run: ..."
      # when the confirmation rounds found nothing clearly better than it.
      def headline
        return "No answer: no server held a rate within the SLO and the memory budget" unless found?
        return "Keep what you run: #{@a.baseline[:config]}" if keep?
        config
      end

      def keep? = @a.keep && !@a.baseline.nil?

      # The answer's config in words: "iodine 0.7.60 with workers=2 threads=4".
      def config = "#{name(@a.server)}#{" #{@a.version}" if @a.version} with #{settings(@a.settings)}"

      # The answer against the runner-up, from the confirmation rounds.
      def margin
        up = @a.runner_up
        return "the only server that ran head to head" unless up
        other = "#{name(up[:server])} #{settings(up[:settings])}"
        return "not compared head to head with #{other}" unless @a.ratio
        rounds = (", #{@a.rounds} paired rounds" if @a.rounds)
        said = "#{times(@a.ratio)}#{interval(@a.interval)}#{rounds}"
        case @a.verdict
        when "ahead" then "#{times(@a.ratio)} the goodput of #{other}#{interval(@a.interval)}#{rounds}"
        when "equivalent" then "~ same as #{other} (#{said}); it uses less memory"
        else "~ same as #{other}: not distinguishable here (#{said})"
        end
      end

      # Against what the app runs today (its own config), where measured.
      def baseline
        b = @a.baseline
        return "#{config}: the rounds could not compare it with what you run" if keep? && !b[:ratio]
        return nil unless b && b[:ratio]
        return "#{times(b[:ratio])} the goodput of #{b[:config]}#{interval(b[:interval])}" unless keep?
        "#{config}: #{times(b[:ratio])} the goodput of what you run#{interval(b[:interval])}, not clear of it"
      end

      # The answer's own figures from the confirmation rounds, and the machine speed they were read at.
      def figures
        f = @a.figures
        return nil unless f && f[:rps]
        words = ["#{Support::Short.sig(f[:rps].to_f)} req/s closed-loop", ("p99 #{Support::Short.sig(f[:p99_ms].to_f)} ms" if f[:p99_ms]),
          ("PSS #{Support::Short.sig(f[:pss_mib].to_f)} MiB" if f[:pss_mib])].compact.join(", ")
        speed = f[:speed_range]
        speed ? "#{words}; at #{format("%.2f", speed[0])}–#{format("%.2f", speed[1])}× the machine's median speed" : words
      end

      # The facts in the order a person acts on them.
      def facts
        list = []
        list << Fact.new(name: keep? ? "the best other config" : "against what you run today", value: baseline) if baseline
        list << Fact.new(name: "against the runner-up", value: margin) if found?
        list << Fact.new(name: "its figures", value: figures) if figures
        list << Fact.new(name: "measured on", value: @a.measured_on) if @a.measured_on
        list << Fact.new(name: keep? ? "the best other config starts with" : "start it with", value: @a.command.join(" "), code: true) if @a.command
        list << Fact.new(name: "config file", value: @a.config_file, code: true) if @a.config_file
        list << Fact.new(name: "Gemfile", value: %(gem "#{@a.gem[0]}", "#{@a.gem[1]}"), code: true) if @a.gem
        list << Fact.new(name: "held to", value: held_to) if found?
        @a.changes.each { |c| list << Fact.new(name: "would change it", value: c) }
        @a.out.each { |key, why| list << Fact.new(name: "not in the answer", value: "#{key}: #{why}") }
        @a.not_done.each { |what| list << Fact.new(name: "not done in time", value: what) }
        list.map(&:freeze)
      end

      private

      def held_to = ["p99 ≤ #{@a.slo_ms || "?"} ms", "< 1% errors", ("PSS ≤ #{Support::Short.sig(@a.memory_mib.to_f)} MiB" if @a.memory_mib)].compact.join(", ")

      def name(key) = key.to_s.split(":", 2).first

      def settings(s) = Support::Format.settings(s)

      def times(ratio) = "#{format("%.2f", ratio)}×"

      def interval(pair) = pair ? " (#{format("%.2f", pair[0])}–#{format("%.2f", pair[1])})" : ""
    end
  end
end
