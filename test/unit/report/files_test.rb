# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "tmpdir"

# The reporters `arena run` uses at the end: Files writes report.md and
# report.html; Fanout hands every event to each reporter.
class ReportFilesTest < Minitest::Test
  FIXTURE = File.expand_path("../../fixtures/results/scenarios/results.json", __dir__)

  class Recorder
    attr_reader :events

    def initialize = @events = []

    Arena::Report::Fanout::EVENTS.each do |event|
      define_method(event) { |*args, **kwargs| @events << [event, args, kwargs] }
    end
  end

  def test_fanout_forwards_every_event_to_every_reporter
    a = Recorder.new
    b = Recorder.new
    fanout = Arena::Report::Fanout.new(a, b)
    fanout.planned(:plan, 3)
    fanout.measured({"server" => "puma"})
    fanout.finished({}, interrupted: true)
    expected = [[:planned, [:plan, 3], {}], [:measured, [{"server" => "puma"}], {}], [:finished, [{}], {interrupted: true}]]
    assert_equal expected, a.events
    assert_equal expected, b.events
  end

  def test_files_written_when_an_interrupted_run_finishes
    Dir.mktmpdir do |dir|
      err = StringIO.new
      document = Arena::Results::Document.load(FIXTURE)
      Arena::Report::Files.new(dir: dir, err: err).finished(document, interrupted: true)
      assert_equal "report: #{dir}/report.md\nreport: #{dir}/report.html\n", err.string
      assert_includes File.read(File.join(dir, "report.md")), "> Note: the run was interrupted"
      html = File.read(File.join(dir, "report.html"))
      assert_includes html, "the run was interrupted"
      refute_match(/<script|<link|@import|url\(|(src|href)="(?!#)/, html, "report.html must need nothing from outside")
    end
  end
end
