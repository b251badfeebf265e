# frozen_string_literal: true

require "json"
require "fileutils"

# How long each unit test file takes, so `rake test:unit` deals its files
# into two halves of about equal time (by size they came out 26 s and 7 s:
# the few files that start real processes are not the largest).
#
# Required by each half's process, it adds a
# minitest reporter that sums each file's test times and merges them into
# tmp/unit-times.json at the end. A fresh clone deals by
# test/support/unit_times.json (one whole run's, committed), and a file timed
# in neither by its size.
module UnitTimes
  ROOT = File.expand_path("../..", __dir__)
  MEASURED = File.join(ROOT, "tmp", "unit-times.json")
  SEED = File.join(ROOT, "test", "support", "unit_times.json")
  # Seconds a byte of test file is guessed to take, from the seed: about 33 s for 1.2 MB.
  GUESS_S_PER_BYTE = 3.0e-5

  module_function

  # The files in two lists of about equal time: the longest first, each into
  # the half with less so far.
  def halves(files, known = times)
    cost = ->(f) { known.fetch(f) { File.size(f) * GUESS_S_PER_BYTE } }
    files.sort_by { |f| [-cost.call(f), f] }.each_with_object([[], []]) do |f, parts|
      parts.min_by { |part| [part.sum(&cost), part.size] } << f
    end
  end

  def times = read(SEED).merge(read(MEASURED))

  def read(path)
    JSON.parse(File.read(path))
  rescue Errno::ENOENT, JSON::ParserError
    {}
  end

  # Merges one process's times into the measured file; the two halves end
  # together, so the read and write hold a lock.
  def record(seconds)
    FileUtils.mkdir_p(File.dirname(MEASURED))
    File.open("#{MEASURED}.lock", File::CREAT | File::RDWR) do |lock|
      lock.flock(File::LOCK_EX)
      File.write(MEASURED, JSON.pretty_generate(read(MEASURED).merge(seconds).sort.to_h))
    end
  end

  # Each test's time, summed by the file its class was defined in.
  class Reporter
    def initialize = @seconds = Hash.new(0.0)

    def start = nil

    def prerecord(*) = nil

    def record(result)
      file = result.source_location&.first
      @seconds[file.delete_prefix("#{ROOT}/")] += result.time if file&.start_with?(ROOT)
    end

    def report = UnitTimes.record(@seconds.transform_values { |s| s.round(2) })

    def passed? = true
  end
end

require "minitest"
module Minitest
  def self.plugin_unit_times_init(_options) = reporter << UnitTimes::Reporter.new
end
Minitest.extensions << "unit_times"
