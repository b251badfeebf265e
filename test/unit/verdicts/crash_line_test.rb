# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# The rule that reads a server's boot log for the line that says it cannot
# run (lib/arena/verdicts/crash_line.rb), and the reader that feeds it the
# lines a start wrote (lib/arena/launch/boot_log.rb).
class CrashLineTest < Minitest::Test
  cover "Arena::Verdicts::CrashLine*"
  cover "Arena::Launch::BootLog*"

  def find(lines, **opts) = Arena::Verdicts::CrashLine.find(lines, **opts)

  # Lines as the servers write them when they cannot run.
  CRASHES = {
    "ruby's VM" => "/app/vendor/bundle/gems/nokogiri/lib/nokogiri.rb:12: [BUG] Segmentation fault at 0x0000000000000008",
    "uWSGI's segfault handler" => "!!! uWSGI process 4242 got Segmentation Fault !!!",
    "uWSGI's worker death" => "DAMN ! worker 1 (pid: 4242) died, killed by signal 11 :( trying respawn ...",
    "uWSGI's worker exit" => "DAMN ! worker 2 (pid: 4243) died :( trying respawn ...",
    "a bind" => "bind(): Address already in use [core/socket.c line 769]",
    "Puma's bind" => "Errno::EADDRINUSE: Address already in use - bind(2) for \"127.0.0.1\" port 9292",
    "Unicorn's worker exit" => "E, [2026-11-25T00:50:00.123 #4242] ERROR -- : reaped #<Process::Status: pid 4243 exit 1> worker=0",
    "a worker killed" => "reaped #<Process::Status: pid 4243 SIGSEGV (signal 11)> worker=1",
    "Iodine's worker crash" => "ERROR: Child worker (4243) crashed. Respawning worker.",
    "glibc" => "Segmentation fault (core dumped)"
  }.freeze

  # Lines healthy boots write that come close.
  HEALTHY = [
    "reaped #<Process::Status: pid 4243 exit 0> worker=0", # a worker told to stop
    "I, [2026-11-25T00:50:00.123 #4242]  INFO -- : listening on addr=127.0.0.1:9292 fd=9",
    "*** Operational MODE: preforking ***",
    "spawned uWSGI worker 1 (pid: 4243, cores: 1)",
    "- Worker 0 (PID: 4243) booted in 0.01s, phase: 0",
    "INFO: Listening on port 3000",
    "Use Ctrl-C to stop",
    "Started GET \"/\" for 127.0.0.1 at 2026-11-25 00:50:00 +0000",
    "the BUG tracker says nothing", # no brackets
    "Address in use by nobody"
  ].freeze

  # Ruby's own crash line is said what first, from its gem's directory on.
  SAID = {"ruby's VM" => "[BUG] Segmentation fault at 0x0000000000000008 (nokogiri/lib/nokogiri.rb:12)"}.freeze

  def test_each_crash_is_found_alone_and_among_healthy_lines
    CRASHES.each do |what, line|
      assert_equal SAID.fetch(what, line), find([line]), what
      assert_equal SAID.fetch(what, line), find([*HEALTHY, line, *HEALTHY]), what
    end
  end

  def test_a_ruby_crash_line_outside_a_gem_keeps_its_path
    assert_equal "[BUG] Segmentation fault (/app/lib/x.rb:1)", find(["/app/lib/x.rb:1: [BUG] Segmentation fault"])
    assert_equal "[BUG] Segmentation fault (x.rb:1)", find(["x.rb:1: [BUG] Segmentation fault"])
    assert_equal "[BUG] Segmentation fault (agoo/x.rb:1)", find(["/gems/agoo/x.rb:1: [BUG] Segmentation fault"])
    assert_equal "\uFFFD [BUG] Segmentation fault", find(["\xff [BUG] Segmentation fault".b.force_encoding("UTF-8")])
  end

  def test_healthy_boot_lines_are_no_crash
    assert_nil find(HEALTHY)
    assert_nil find([])
  end

  def test_the_first_crash_line_is_the_one_said
    lines = ["booting", CRASHES["uWSGI's segfault handler"], "backtrace...", CRASHES["uWSGI's worker death"]]
    assert_equal CRASHES["uWSGI's segfault handler"], find(lines)
  end

  def test_colour_codes_and_surrounding_space_go_and_a_long_line_is_cut
    assert_equal "ERROR: Child worker (7) crashed. Respawning worker.", find(["  \e[1;31mERROR: Child worker (7) crashed. Respawning worker.\e[0m \n"])
    long = "x.rb:1: [BUG] #{"y" * 400}"
    assert_equal "[BUG] #{"y" * 400} (x.rb:1)"[0, 300], find([long])
    assert_equal 300, find([long]).size
  end

  def test_an_invalid_byte_does_not_hide_the_line
    assert_equal "\uFFFD [BUG] Segmentation fault", find(["\xff [BUG] Segmentation fault".b.force_encoding("UTF-8")])
  end

  def test_an_adapters_own_words_replace_the_generic_ones
    own = [/Unable to load application/]
    assert_equal "! Unable to load application: RuntimeError: boom", find(["ok", "! Unable to load application: RuntimeError: boom"], patterns: own)
    assert_nil find([CRASHES["ruby's VM"]], patterns: own)
  end

  # Falcon's child logs the exception its app raised at boot as JSON, and
  # waits for its health check: its adapter's pattern says class and message.
  def test_falcons_failed_boot_task_is_said_as_class_and_message
    line = '{"time":"2026-11-25T00:56:00+00:00","severity":"warn","oid":2220,"pid":20587,"subject":"Async::Task",' \
      '"message":"Task may have ended with unhandled exception.","event":{"type":"failure","root":"/tmp/app",' \
      '"class":"RuntimeError","message":"boom \\"at\\" boot","backtrace":["/tmp/app/config.ru:1"]}}'
    patterns = Arena::Servers::Falcon.new.crash_patterns
    assert_equal 'RuntimeError: boom \\"at\\" boot', find(["{\"severity\":\"info\",\"message\":\"Controller starting...\"}", line], patterns: patterns)
    assert_nil find([line]) # not a crash to any other server
  end

  def test_every_adapter_reads_at_least_the_generic_lines
    Arena::Servers.all.each do |klass|
      patterns = klass.new.crash_patterns
      CRASHES.each { |what, line| assert_equal SAID.fetch(what, line), find([line], patterns: patterns), klass.key }
      assert_nil find(HEALTHY, patterns: patterns), klass.key
    end
  end

  # An exception Ruby did not catch explains an exit, but a server that
  # logged one and carries on is not stopped for it.
  def test_an_uncaught_exception_is_said_only_once_the_server_has_exited
    Dir.mktmpdir("boot-log") do |dir|
      path = File.join(dir, "server.log")
      log = Arena::Launch::BootLog.new(path)
      File.write(path, "booting\n/app/config.ru:1:in `block in <main>': boom at boot (RuntimeError)\n\tfrom /app/x.rb:2:in `eval'\n")
      assert_nil log.crash
      assert_equal "/app/config.ru:1:in `block in <main>': boom at boot (RuntimeError)", log.crash(final: true)
    end
  end

  # A config.ru that does not parse: rack's builder raises it from its own
  # frame; the user is told the file, line and error, not a gem's path.
  def test_an_exception_raised_in_a_gem_is_said_without_the_gems_frame
    line = "/var/lib/gems/3.1.0/gems/rack-3.2.8/lib/rack/builder.rb:108:in `eval': " \
      "/tmp/app/config.ru:1: syntax error, unexpected end-of-input, expecting '}' (SyntaxError)"
    assert_equal "/tmp/app/config.ru:1: syntax error, unexpected end-of-input, expecting '}' (SyntaxError)",
      find(["booting", line], patterns: Arena::Verdicts::CrashLine::LAST_WORDS)
    ruby_lib = "/usr/lib/ruby/3.1.0/timeout.rb:9:in 'call': execution expired (Timeout::Error)"
    assert_equal "execution expired (Timeout::Error)", find([ruby_lib], patterns: Arena::Verdicts::CrashLine::LAST_WORDS)
  end

  def test_a_crash_line_comes_before_the_exception_that_followed
    Dir.mktmpdir("boot-log") do |dir|
      path = File.join(dir, "server.log")
      log = Arena::Launch::BootLog.new(path)
      raised = "x.rb:1:in `initialize': Address already in use - bind(2) for \"127.0.0.1\" port 9292 (Errno::EADDRINUSE)"
      File.write(path, "#{raised}\nbind(): Address already in use\n")
      assert_equal raised, log.crash # it matches both: a crash, said at once
      File.write(path, "", mode: "w")
      log2 = Arena::Launch::BootLog.new(path)
      File.write(path, "a.rb:1:in `b': no (ArgumentError)\n", mode: "a")
      assert_nil log2.crash
      File.write(path, "DAMN ! worker 1 (pid: 5) died :( trying respawn ...\n", mode: "a")
      assert_equal "DAMN ! worker 1 (pid: 5) died :( trying respawn ...", log2.crash(final: true)
    end
  end

  def test_the_boot_log_reads_only_what_this_start_wrote
    Dir.mktmpdir("boot-log") do |dir|
      path = File.join(dir, "server.log")
      File.write(path, "#{CRASHES["Unicorn's worker exit"]}\n") # the killed worker of the server before
      log = Arena::Launch::BootLog.new(path)
      assert_nil log.crash
      File.write(path, "booting\n", mode: "a")
      assert_nil log.crash
      File.write(path, "!!! uWSGI process 9 got Segm", mode: "a") # a line still being written
      assert_nil log.crash
      File.write(path, "entation Fault !!!\nmore\n", mode: "a")
      assert_equal "!!! uWSGI process 9 got Segmentation Fault !!!", log.crash
      assert_equal "!!! uWSGI process 9 got Segmentation Fault !!!", log.crash # kept
    end
  end

  def test_a_last_line_without_newline_counts_once_the_server_has_exited
    Dir.mktmpdir("boot-log") do |dir|
      path = File.join(dir, "server.log")
      log = Arena::Launch::BootLog.new(path) # no file yet
      assert_nil log.crash
      File.write(path, "x.rb:1: [BUG] Segmentation fault")
      assert_nil log.crash
      assert_equal "[BUG] Segmentation fault (x.rb:1)", log.crash(final: true)
    end
  end

  def test_a_log_cut_under_the_reader_is_read_again_from_its_end
    Dir.mktmpdir("boot-log") do |dir|
      path = File.join(dir, "server.log")
      File.write(path, "x" * 5000 + "\n")
      log = Arena::Launch::BootLog.new(path)
      File.write(path, "[arena: cut]\nDAMN ! worker 1 (pid: 5) died :( trying respawn ...\n") # LogCap cut it shorter
      assert_equal "DAMN ! worker 1 (pid: 5) died :( trying respawn ...", log.crash
    end
  end

  # Ruby's crash report as a Rails app under Agoo wrote it (cut to a few lines
  # of each section; the real one had 570).
  REPORT = [
    "/gems/actionpack-7.2.4/lib/action_dispatch/http/response.rb:458: [BUG] Segmentation fault at 0x0000000000000000",
    "ruby 3.1.2p20 (2022-04-12 revision 4491bb740a) [x86_64-linux-gnu]",
    "",
    "-- Control frame information -----------------------------------------------",
    "c:0065 p:---- s:0436 e:000435 CFUNC  :match",
    "",
    "-- Ruby level backtrace information ----------------------------------------",
    *(1..7).map { |i| "/gems/agoo-2.15.15/bin/agoo:#{i}:in `frame#{i}'" },
    "",
    "-- Machine register context ------------------------------------------------",
    " RIP: 0x00007f8e226d2b5d RBP: 0x0000559491b98800 RSP: 0x00007ffee3518980",
    "",
    "-- C level backtrace information -------------------------------------------",
    "/lib/x86_64-linux-gnu/libruby-3.1.so.3.1(0x7f8e22863f28) [0x7f8e22863f28]",
    "",
    "-- Other runtime information -----------------------------------------------",
    "",
    "* Loaded script: /usr/local/bin/agoo",
    "",
    "* Loaded features:",
    "",
    "    0 enumerator.so",
    "   12 /usr/lib/ruby/3.1.0/set.rb",
    "",
    "* Process memory map:",
    "",
    "559471dfd000-559471dfe000 r--p 00000000 fe:00 248069                     /usr/bin/ruby3.1",
    "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]",
    "",
    ""
  ].freeze

  def readable(lines) = Arena::Verdicts::CrashLine.readable(lines)

  def test_a_ruby_crash_report_reads_as_its_bug_line_and_deepest_frames
    frames = (3..7).map { |i| "/gems/agoo-2.15.15/bin/agoo:#{i}:in `frame#{i}'" }
    assert_equal ["I, booted", REPORT.first, *frames, Arena::Verdicts::CrashLine::CUT], readable(["I, booted", *REPORT])
  end

  def test_the_log_goes_on_after_the_report_and_a_second_report_is_cut_too
    after = ["E, worker 4242 died, respawning", "I, worker 4243 booted"]
    once = readable(REPORT)
    assert_equal [*once, *after, *once], readable([*REPORT, *after, *REPORT])
  end

  def test_a_report_cut_short_keeps_what_it_has
    assert_equal [REPORT.first, Arena::Verdicts::CrashLine::CUT], readable(REPORT.first(5))
    assert_equal [REPORT.first, REPORT[7], Arena::Verdicts::CrashLine::CUT], readable(REPORT.first(8))
  end

  def test_a_report_without_a_ruby_backtrace_is_its_bug_line_alone_and_lends_no_frames
    bare = REPORT.reject { |line| line.include?("agoo:") || line.include?("Ruby level") }
    cut = Arena::Verdicts::CrashLine::CUT
    assert_equal [REPORT.first, cut, "after", REPORT.first, cut], readable([*bare, "after", *bare])
    assert_equal [*readable(REPORT), "after", REPORT.first, cut], readable([*REPORT, "after", *bare])
  end

  # Every line ended by CR (a log written for a terminal), an invalid byte
  # in a frame and in the memory map: the same lines are kept.
  def test_carriage_returns_and_invalid_bytes_do_not_break_the_report
    bad = "\xff".b.force_encoding("UTF-8")
    lines = REPORT.map { |line| (line.match?(/\A(\h+-|\/gems\/agoo.*:7:)/) ? line.sub("/", "/#{bad}") : line) + "\r" }
    kept = readable([*lines, "after"])
    assert_equal [lines.first, *lines[9, 5], Arena::Verdicts::CrashLine::CUT, "after"], kept
  end

  def test_a_log_without_a_report_is_left_as_it_is
    assert_equal HEALTHY, readable(HEALTHY)
    assert_equal [], readable([])
  end
end
