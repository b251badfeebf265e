# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/engine_case"

module Arena
  # --request-start: every request carries X-Request-Start: t=<microseconds>,
  # its own send time, with a body and pipelined as well.
  class EngineRequestStartTest < EngineCase
    include TestServers

    # Keeps every X-Request-Start it sees, with the time it read it.
    class Stamps < KeepAlive
      def stamps = @mutex.synchronize { (@stamps ||= []).dup }

      private

      def record(request)
        super
        now = Process.clock_gettime(Process::CLOCK_REALTIME, :microsecond)
        @mutex.synchronize { (@stamps ||= []) << [request.headers["x-request-start"], now, request.body] }
      end
    end

    def test_each_request_carries_its_own_send_time
      Stamps.open do |server|
        Dir.mktmpdir("arena-engine") do |dir|
          body = File.join(dir, "body")
          File.write(body, "x" * 3000)
          run_ok(server.target, "-c", 2, "-p", 4, "-n", 400, "--request-start", "--body", body, deadline: 10)
        end
        stamps = server.stamps
        assert_equal 400, stamps.size
        stamps.each do |header, seen, got_body|
          assert_match(/\At=\d{16}\z/, header)
          sent = header[2..].to_i
          assert_operator sent, :<=, seen + 1000, "sent before the server read it (1 ms clock slack)"
          assert_operator seen - sent, :<, 2_000_000, "within 2 s of the server reading it"
          assert_equal "x" * 3000, got_body, "the body follows the header whole"
        end
        assert_operator stamps.map(&:first).uniq.size, :>, 100, "each request its own time"
      end
    end

    # --request-start-every 16: one request in 16 carries its send time, the
    # others go without the header's line, whole (bodies pipelined behind
    # them), so a server parses the header on one request in 16 (issue 32).
    def test_one_request_in_n_carries_the_header_and_the_rest_are_whole_without_it
      Stamps.open do |server|
        Dir.mktmpdir("arena-engine") do |dir|
          body = File.join(dir, "body")
          File.write(body, "y" * 3000)
          run_ok(server.target, "-c", 2, "-p", 4, "-n", 640, "--request-start-every", 16, "--body", body, deadline: 10)
        end
        stamps = server.stamps
        assert_equal 640, stamps.size
        stamped = stamps.count { |h, _, _| h }
        assert_equal 40, stamped, "one in 16"
        stamps.each do |header, _, got_body|
          assert_match(/\At=\d{16}\z/, header) if header
          assert_equal "y" * 3000, got_body, "every body follows its headers whole"
        end
      end
    end

    # --request-start-warmup: the header rides the warm-up only, after the
    # loop's first turn (one request per connection); the counted phase goes
    # without it, so the observer stays out of the figure (issue 32).
    def test_the_warmup_alone_carries_the_header_after_its_first_turn
      # One connection: the server reads its requests in the order sent.
      Stamps.open do |server|
        run = run_ok(server.target, "-c", 1, "-w", 0.4, "-d", 0.4, "--request-start-warmup", deadline: 10)
        marks = server.stamps.map { |h, _, _| h ? "s" : "-" }.join
        assert_match(/\A-s{10,}-{10,}\z/, marks, "the first bare, the warm-up stamped, the counted phase bare")
        # The warm-up's requests are counted apart (a database's statements
        # over the whole run are divided by both): each one the server read
        # is in one count, the last in flight at the end perhaps in neither.
        sent = run.json["requests"].values_at("sent", "warmup_sent")
        assert_operator sent.last, :>=, marks.rindex("s"), "the warm-up's: #{sent}, #{marks[0, 40]}"
        assert_in_delta marks.size, sent.sum, 1, "every request in one count: #{sent}"
        assert server.stamps.select(&:first).all? { |h, _, _| h.match?(/\At=\d{16}\z/) }
      end
      # Three: each one's first request goes bare. Around the warm-up's end
      # the server reads the connections' last stamped and first counted
      # requests in any order (a slow answer holds one back while the others
      # go on), so only the firsts and the counted tail are certain.
      Stamps.open do |server|
        run_ok(server.target, "-c", 3, "-w", 0.4, "-d", 0.4, "--request-start-warmup", deadline: 10)
        marks = server.stamps.map { |h, _, _| h ? "s" : "-" }.join
        warmup = marks[0..marks.rindex("s")]
        assert_operator warmup.count("-"), :>=, 3, "each connection's first request bare: #{marks[0, 80]}"
        assert_operator warmup.count("s"), :>, 10
        assert_operator marks.size - warmup.size, :>, 10, "the counted phase answered, bare"
      end
    end

    def test_without_the_flag_no_header_is_sent
      Stamps.open do |server|
        run_ok(server.target, "-c", 1, "-n", 5)
        assert server.stamps.all? { |h, _| h.nil? }
      end
    end
  end
end
