# frozen_string_literal: true

# Runs test files, each in a Ruby process of its own, ARENA_TEST_JOBS at a
# time (default: the machine's cores), the longest first so the last to
# finish is a short one. Beside those, one more file may run when the CPU
# the running files used last time, with its own, fits the cores: a file
# that mostly waits (on boots, sleeps, a database) left a third of this
# lane's cores idle two at a time (1.32 of 2 busy, sampled). A file that
# says `# test: two at most` is never that third, nor beside one, and a slot
# freed beside it goes to another such file first. How long
# each file took, and the CPU seconds of its processes, are kept in
# tmp/test-durations.json for the next run; a fresh clone reads test/support/durations.json (one whole run's,
# committed), and a file timed in neither is guessed from its number of
# tests, and counted as using a whole core. Files whose first lines say
# `# test: serial` (timing thresholds that contention would distort) run
# after the others, one at a time; files whose first lines say
# `# test: light` (they wait on sleeps: a tenth of a core) run beside those,
# one at a time, on the core the serial files leave idle (beside the others
# when there is no serial file). Each file's output is printed whole when it
# ends (a failure in full, a pass as its summary line), so two files never
# interleave. Exit status 1 if any file failed. Ctrl-C stops every child's
# process group.
#
#   ruby test/support/parallel_files.rb FILE...
require "etc"
require "json"
require "tempfile"
require "fileutils"

module ParallelFiles
  ROOT = File.expand_path("../..", __dir__)
  DURATIONS = File.join(ROOT, "tmp", "test-durations.json")
  SEED = File.join(ROOT, "test", "support", "durations.json")
  # A guess for a file never timed, per test: integration tests start servers.
  GUESS_S = {"integration" => 12.0, "engine" => 1.5}.freeze
  # The cores a file is counted at beside others: what its processes used
  # over its time, and a tenth more for what that count misses (daemons that
  # left their parent: PostgreSQL, Passenger's agents). In one lane the count
  # was 1,012 CPU-s and the machine's busy time, sampled, about 1,067. A file
  # never timed is counted at a whole core.
  CPU_MARGIN = 1.1
  # The share of the cores the files may fill so, a tenth left: at the
  # whole (1.93 of 2 counted) a Rails boot beside two others was slowed
  # until Passenger completed no request in a 0.5 s load.
  BUDGET = 0.9

  Result = Struct.new(:file, :ok, :seconds, :cpu, :ended, :output, keyword_init: true)

  module_function

  def call(files, jobs: Integer(ENV.fetch("ARENA_TEST_JOBS", Etc.nprocessors)), out: $stdout)
    known = durations
    # Each file's cores from the committed run and the last, the larger: a
    # file crowded last time used its CPU over a longer wall, and counting
    # that lower rate would crowd it more the next time.
    rates = [read(SEED), read(DURATIONS)]
    order = ->(list) { list.sort_by { |f| -seconds(known, f) } }
    started = clock
    running = {}
    results = []
    stop = ->(*) { running.each_key { |pid| kill(pid) } && exit(130) }
    trap("INT", &stop)
    trap("TERM", &stop)
    cores = Etc.nprocessors
    phases(files, jobs).each do |lanes|
      lanes = lanes.map { |list, width| [order.call(list), width] }
      until lanes.all? { |queue, _| queue.empty? } && running.empty?
        lanes.each_with_index do |(queue, width), lane|
          mine = -> { running.values.select { |r| r[3] == lane }.map(&:first) }
          loop do
            file = if mine.call.size < width then take(queue, mine.call)
            elsif width > 1 && mine.call.size == width then beside(queue, mine.call, rates, cores)
            end
            break unless file
            log = Tempfile.new("test-out")
            pid = Process.spawn(RbConfig.ruby, "-Ilib", "-Itest", file, chdir: ROOT, out: log, err: log, pgroup: true)
            running[pid] = [file, log, clock, lane]
          end
        end
        cpu_before = children_cpu
        pid, status = Process.wait2
        file, log, t0, = running.delete(pid)
        result = Result.new(file: file, ok: status.success?, seconds: (clock - t0).round(1),
          cpu: (children_cpu - cpu_before).round(1), ended: (clock - started).round, output: File.read(log.path))
        log.close!
        report(result, out)
        results << result
      end
    end
    save(known.merge(results.to_h { |r| [r.file, {"s" => r.seconds, "cpu" => r.cpu}] }))
    summary(results, clock - started, jobs, out)
    results.all?(&:ok)
  end

  def report(result, out)
    if result.ok
      line = result.output.lines.grep(/\d+ runs, \d+ assertions/).last&.strip || "no summary line"
      out.puts "#{result.file} (#{result.seconds} s, #{result.cpu} s CPU, ended at #{result.ended} s): #{line}"
    else
      out.puts "#{result.file} (#{result.seconds} s, #{result.cpu} s CPU, ended at #{result.ended} s): FAILED\n#{result.output}"
    end
    out.flush
  end

  def summary(results, wall, jobs, out)
    failed = results.reject(&:ok)
    slowest = results.max_by(3, &:seconds).map { |r| "#{File.basename(r.file)} #{r.seconds} s" }.join(", ")
    out.puts "#{results.size} files in #{wall.round(1)} s with #{jobs} at once and one more when its CPU fit (slowest: #{slowest}); " \
      "#{failed.empty? ? "all passed" : "FAILED: #{failed.map(&:file).join(" ")}"}"
    out.puts(floor(results, Etc.nprocessors))
    out.puts(counts(results))
  end

  # The physics of the lane's wall time: CPU seconds cannot run faster than
  # the cores allow, whatever the schedule. Counted from the processes each
  # file's process waited for (servers Arena reaped included; a daemon that
  # left its parent is not), so it is a lower bound.
  def floor(results, cores)
    cpu = results.sum(&:cpu)
    "their processes used at least #{cpu.round} CPU-s: on #{cores} cores no schedule ends before #{(cpu / cores).round} s"
  end

  # The tests of every file, as one plain line that CI reads: a file that died
  # before minitest's summary counts as one failure.
  def counts(results)
    totals = results.map do |r|
      runs, failures, errors, skips = r.output.lines.grep(/\d+ runs, \d+ assertions/).last.to_s
        .scan(/(\d+) (runs|failures|errors|skips)/).to_h { |n, k| [k, n.to_i] }.values_at("runs", "failures", "errors", "skips").map(&:to_i)
      bad = failures + errors
      bad = 1 if !r.ok && bad.zero?
      [runs - failures - errors - skips, bad, skips]
    end.transpose.map(&:sum)
    passed, failed, skipped = totals.empty? ? [0, 0, 0] : totals
    "integration: #{passed} passed, #{failed} failed, #{skipped} skipped"
  end

  # The files in phases, each phase lanes of [files, how many at once] run
  # side by side: the parallel files `jobs` at once, then the serial ones
  # alone with the light ones beside them. A serial phase leaves a core
  # idle, and a light file (a tenth of a core) on it does not disturb a
  # serial file's timing the way a file that computes would.
  def phases(files, jobs)
    serial, rest = files.partition { |f| marked?(f, "serial") }
    light, parallel = rest.partition { |f| marked?(f, "light") }
    return [[[parallel + light, jobs]]] if serial.empty?
    [[[parallel, jobs]], [[serial, 1], [light, 1]]]
  end

  def marked?(file, word)
    File.foreach(file).first(5).any? { |l| l.start_with?("# test: #{word}") }
  rescue Errno::ENOENT
    false
  end

  # The file for a free slot (taken out of the queue): the longest queued,
  # but beside a file that runs two at most, the longest that does too. Paired
  # so, such files keep the third slot shut for the shorter time: in one lane
  # they ran beside others and only two files ran for 250 of its 448 s.
  def take(queue, running)
    paired = queue.find { |f| marked?(f, "two at most") } if running.any? { |f| marked?(f, "two at most") }
    queue.delete(paired || queue.first)
  end

  # The longest queued file whose CPU fits beside the running ones' on
  # nine tenths of `cores` (taken out of the queue), or nil. A file whose first lines say
  # `# test: two at most` (it reads a server's limit against physics, and a
  # second neighbour's boots move it) is never the third, nor beside one.
  def beside(queue, running, rates, cores)
    return nil if running.any? { |f| marked?(f, "two at most") }
    load = running.sum { |f| cores_used(rates, f) }
    file = queue.find { |f| !marked?(f, "two at most") && load + cores_used(rates, f) <= BUDGET * cores }
    queue.delete(file)
  end

  # A file's wall seconds last time; its record is {"s", "cpu"} (a bare
  # number, the older form, is its seconds).
  def seconds(known, file)
    entry = known[file]
    entry.is_a?(Hash) ? entry.fetch("s") : (entry || guess(file))
  end

  # The cores a file keeps busy: its CPU over its wall time, the largest of
  # the tables' (each {file => {"s", "cpu"}}), 1 if none has its CPU.
  def cores_used(tables, file)
    seen = tables.filter_map do |table|
      entry = table[file]
      entry["cpu"] / entry["s"] if entry.is_a?(Hash) && entry["cpu"] && entry["s"].to_f.positive?
    end
    seen.empty? ? 1.0 : CPU_MARGIN * seen.max
  end

  def guess(file)
    per = GUESS_S.fetch(file.split("/")[1], 1.0)
    [File.read(file).scan(/^\s*def test_|define_method\("test_/).size, 1].max * per
  end

  def durations = read(SEED).merge(read(DURATIONS))

  def read(path)
    JSON.parse(File.read(path))
  rescue Errno::ENOENT, JSON::ParserError
    {}
  end

  def save(table)
    FileUtils.mkdir_p(File.dirname(DURATIONS))
    File.write(DURATIONS, JSON.pretty_generate(table.sort.to_h))
  end

  def kill(pid)
    Process.kill("KILL", -pid)
  rescue SystemCallError
    nil
  end

  def clock = Process.clock_gettime(Process::CLOCK_MONOTONIC)

  # User and system seconds of every child reaped so far, and of theirs: the
  # step across one wait is the CPU of the file's process tree.
  def children_cpu = Process.times.then { |t| t.cutime + t.cstime }
end

exit(ParallelFiles.call(ARGV) ? 0 : 1) if $PROGRAM_NAME == __FILE__
