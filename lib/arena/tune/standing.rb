# frozen_string_literal: true

require_relative "../verdicts/crash_line"

module Arena
  module Tune
    # The answer server's standing, in one line under the answer, from facts
    # and not opinion: its version's release date, whether it is a release
    # candidate (or another prerelease), the newest release and a newer
    # prerelease (rubygems.org's, when it answered: Bundle::GemFacts), and the
    # crashes Arena recorded of that server on this app. Pure: values in, a
    # string out.
    #
    #   standing: iodine 0.8.0.rc1 is a release candidate, released 2025-12-01; newest release 0.7.60
    #   (2024-01-21); no crash seen here
    module Standing
      # extend self, not module_function: mutant mutates the methods the module then calls
      extend self

      # server: its key; facts: Bundle::GemFacts::Facts; crashes: the crash
      # lines recorded (Standing.crashes); ruby: the Ruby the servers run on.
      # nil without a version.
      def line(server:, facts:, crashes:, ruby:)
        return nil unless facts&.version
        latest, pre = newest(facts)
        head = "standing: #{server} #{facts.version}#{kind(facts.version)}"
        head += ", released #{facts.released}" if facts.released
        head += ", the newest release" if latest&.version == facts.version
        others = []
        others << "newest release #{release(latest, ruby)}" if latest && latest.version != facts.version
        others << "newer prerelease #{release(pre, ruby)}" if pre
        [head, (others.join(", ") unless others.empty?), crash_words(crashes)].compact.join("; ")
      end

      # The crash lines recorded of `key` (Results::ServerRecord, this run's), in order.
      def crashes(servers, key)
        servers.select { |s| s.name == key && s.failed? }.filter_map { |s| Verdicts::CrashLine.recorded(s.error) }
      end

      private

      def kind(version)
        v = Gem::Version.new(version)
        return "" unless v.prerelease?
        version.match?(/rc\d*\z|\.rc/i) ? " is a release candidate" : " is a prerelease"
      rescue ArgumentError
        ""
      end

      # The newest release and the newest prerelease past it (and past this version), as the registry lists them.
      def newest(facts)
        releases = Array(facts.releases)
        latest = releases.reject(&:prerelease).max_by { |r| Gem::Version.new(r.version) }
        pre = releases.select(&:prerelease).max_by { |r| Gem::Version.new(r.version) }
        floor = [latest&.version, facts.version].compact.map { |v| Gem::Version.new(v) }.max
        [latest, (pre if pre && Gem::Version.new(pre.version) > floor)]
      rescue ArgumentError
        [nil, nil]
      end

      # "0.8.3 (2026-10-26, needs Ruby >= 3.2.0)": the Ruby only when this one does not meet it.
      def release(r, ruby)
        needs = (r.ruby && !Gem::Requirement.new(r.ruby.split(/,\s*/)).satisfied_by?(Gem::Version.new(ruby))) ? ", needs Ruby #{r.ruby}" : ""
        "#{r.version} (#{r.date}#{needs})"
      rescue ArgumentError # Gem::Requirement::BadRequirementError is one
        "#{r.version} (#{r.date})"
      end

      def crash_words(crashes)
        return "no crash seen here" if crashes.empty?
        "crashed here #{(crashes.size == 1) ? "once" : "#{crashes.size} times"}: #{crashes.first}"
      end
    end
  end
end
