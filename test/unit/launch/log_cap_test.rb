# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# A server's log kept under its cap while the server appends: the start and
# the end stay, whole lines, and the cut says how much went.
class LogCapTest < Minitest::Test
  def setup
    @dir = Dir.mktmpdir("log-cap")
    @path = File.join(@dir, "server.log")
  end

  def teardown = FileUtils.rm_rf(@dir)

  def test_the_middle_is_cut_and_the_head_and_tail_kept
    File.write(@path, (1..2000).map { |i| format("request %04d\n", i) }.join) # 13 bytes a line, 26,000 in all
    cap = Arena::Launch::LogCap.new(max_bytes: 4000, head_bytes: 1000, tail_bytes: 1000)
    writer = File.open(@path, "a") # the server's own handle, appending
    cut = cap.trim(@path)
    writer.write("request 2001\n")
    writer.close
    lines = File.readlines(@path, chomp: true)
    assert_equal "request 0001", lines.first
    assert_equal "request 2001", lines.last
    assert_equal "request 2000", lines[-2]
    mark = lines.find { |l| l.start_with?("[arena:") }
    assert_equal "[arena: #{cut} bytes of this log were cut here to keep it under 3 KiB]", mark
    assert_operator File.size(@path), :<, 2200
    assert lines.all? { |l| l.match?(/\Arequest \d{4}\z/) || l == mark }, "only whole lines"
    assert_equal 0, cap.trim(@path), "under the cap: nothing cut"
  end

  # Through a real process that logs every line it is given, as an app that
  # logs every request does: the file stays capped while it runs. Lines
  # written during a cut may go with the middle (Launch::LogCap says so): the last
  # line comes after a pause, once the cuts are done, so that it is the end.
  def test_a_process_group_keeps_its_log_capped_while_the_program_writes
    program = "STDOUT.sync = true; 3999.times { |i| puts format('line %05d', i); sleep 0.0005 if i % 100 == 0 }; " \
      "sleep 0.3; puts 'line 03999'; sleep 5"
    group = Arena::System::ProcessGroup.new(["ruby", "-e", program],
      log_path: @path, log_cap: Arena::Launch::LogCap.new(max_bytes: 8000, head_bytes: 1000, tail_bytes: 2000, interval: 0.05))
    group.start
    deadline = Arena::Support::Clock.now + 5
    sleep 0.05 until File.read(@path).include?("line 03999") || Arena::Support::Clock.now > deadline
    sleep 0.2
    assert_operator File.size(@path), :<=, 8000 + 200
    group.stop(grace: 1)
    lines = File.readlines(@path, chomp: true)
    assert_equal "line 00000", lines.first
    assert_equal "line 03999", lines.last
  end
end
