# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "arena/tune"

module Arena
  # The answer server's standing in one line, from facts: its version's
  # release date (its spec's, else the registry's), the newest release (and a
  # newer prerelease) when rubygems.org answered, whether the version is a
  # release candidate, and the crashes Arena recorded of it on this app.
  class StandingTest < Minitest::Test
    cover "Arena::Tune::Standing*"
    cover "Arena::Verdicts::CrashLine*"

    R = Bundle::GemFacts::Release
    IODINE = [R.new(version: "0.8.0.rc2", date: "2026-01-03", prerelease: true, ruby: ">= 3.2.0"),
      R.new(version: "0.8.0.rc1", date: "2025-12-01", prerelease: true, ruby: ">= 3.2.0"),
      R.new(version: "0.7.60", date: "2024-01-21", prerelease: false, ruby: ">= 2.3.0")].freeze

    def facts(version, date: nil, releases: IODINE, name: "iodine")
      Bundle::GemFacts::Facts.new(name: name, version: version, date: date, releases: releases)
    end

    def line(facts, crashes: [], ruby: "3.1.2") = Tune::Standing.line(server: facts.name, facts: facts, crashes: crashes, ruby: ruby)

    def test_a_release_candidate_says_so_and_the_newest_release
      assert_equal "standing: iodine 0.8.0.rc1 is a release candidate, released 2025-12-01; newest release 0.7.60 " \
        "(2024-01-21), newer prerelease 0.8.0.rc2 (2026-01-03, needs Ruby >= 3.2.0); no crash seen here",
        line(facts("0.8.0.rc1"))
      assert_match(/\Astanding: x 2\.0\.0\.beta1 is a prerelease; /, line(facts("2.0.0.beta1", releases: nil, name: "x")))
    end

    def test_a_version_that_crashed_here_says_how_often_and_the_first_line
      agoo = [R.new(version: "2.15.15", date: "2026-05-09", prerelease: false, ruby: ">= 2.5")]
      crash = "[BUG] Segmentation fault at 0x0000000000000010 (agoo-2.15.15/lib/agoo.rb:12)"
      assert_equal "standing: agoo 2.15.15, released 2026-05-09, the newest release; crashed here 2 times: #{crash}",
        line(facts("2.15.15", date: "2026-05-09", releases: agoo, name: "agoo"), crashes: [crash, "killed by signal 11 (SIGSEGV)"])
      assert_equal "standing: agoo 2.15.15; crashed here once: killed by signal 11 (SIGSEGV)",
        line(facts("2.15.15", releases: nil, name: "agoo"), crashes: ["killed by signal 11 (SIGSEGV)"])
    end

    def test_an_older_release_names_the_newest_and_the_ruby_it_needs_when_not_this_one
      assert_equal "standing: iodine 0.7.60, released 2024-01-21, the newest release; newer prerelease 0.8.0.rc2 " \
        "(2026-01-03, needs Ruby >= 3.2.0); no crash seen here", line(facts("0.7.60"))
      newer = [R.new(version: "0.8.3", date: "2026-10-26", prerelease: false, ruby: ">= 3.2.0"), *IODINE]
      assert_equal "standing: iodine 0.7.60, released 2024-01-21; newest release 0.8.3 (2026-10-26); no crash seen here",
        line(facts("0.7.60", releases: newer), ruby: "3.3.0")
    end

    # Unreached registry: quiet, the spec's date alone (RubyGems' 1980-01-02 placeholder is no date).
    def test_without_the_registry_only_what_the_spec_says
      assert_equal "standing: puma 8.0.2; no crash seen here", line(facts("8.0.2", releases: nil, name: "puma"))
      assert_equal "standing: falcon 0.51.1, released 2025-03-08; no crash seen here",
        line(facts("0.51.1", date: "2025-03-08", releases: nil, name: "falcon"))
      assert_equal "standing: puma 8.0.2; no crash seen here", line(facts("8.0.2", releases: [], name: "puma"))
    end

    def test_no_version_is_no_line
      assert_nil line(facts(nil))
    end

    def test_the_crashes_recorded_of_a_server_on_this_app
      record = ->(name, status, error) { Results::ServerRecord.new(label: "#{name}:x", name: name, status: status, error: error) }
      servers = [record.call("agoo", "ok", nil),
        record.call("agoo", "failed", "its log: [BUG] Segmentation fault at 0x10 (agoo.rb:1); arena-load: cannot connect"),
        record.call("agoo", "failed", "agoo:x crashed during boot: Segmentation fault"),
        record.call("agoo", "failed", "agoo:x exited during boot (killed by signal 11)"),
        record.call("agoo", "failed", "agoo:x exited during boot (exit status 1): config.ru:1:in `<main>': boom (RuntimeError)"),
        record.call("agoo", "failed", "its log: Address already in use - bind(2) for 127.0.0.1:4000; not ready"),
        record.call("iodine", "failed", "its log: [BUG] other; x")]
      assert_equal ["[BUG] Segmentation fault at 0x10 (agoo.rb:1)", "Segmentation fault", "killed by signal 11 (SIGSEGV)"],
        Tune::Standing.crashes(servers, "agoo")
      assert_nil Verdicts::CrashLine.recorded(nil)
      assert_nil Verdicts::CrashLine.recorded("agoo:x exited during boot (killed by signal 15)")
      assert_equal "[BUG] x", Verdicts::CrashLine.recorded("agoo:x exited during boot again (exit status 1): [BUG] x")
    end
  end
end
