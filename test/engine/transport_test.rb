# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/engine_case"
require "arena"
require "arena/launch/certificates"
require "socket"
require "tmpdir"

module Arena
  # The engine's transports against a real nginx: TLS with HTTP/1.1, HTTP/2
  # over TLS (ALPN) and h2c, each with the protocol it negotiated in the
  # document, the handshake counted, and TLS failures told apart (a server
  # without h2, a certificate that does not verify, an expired one).
  class EngineTransportTest < EngineCase
    NGINX = ["/usr/sbin/nginx", "/usr/bin/nginx"].find { |p| File.executable?(p) }

    # One nginx for the class (the tests are about the engine, not boots).
    class Lab
      attr_reader :ports, :certs, :expired

      def initialize
        @dir = Dir.mktmpdir("arena-tls-lab")
        @certs = Launch::Certificates.write(dir: File.join(@dir, "good"))
        @expired = Launch::Certificates.write(dir: File.join(@dir, "expired"), expired: true)
        @ports = %i[tls_h2 tls h2c expired].to_h { |k| [k, free_port] }
        File.write(File.join(@dir, "nginx.conf"), config)
        @group = System::ProcessGroup.new([NGINX, "-p", @dir, "-c", File.join(@dir, "nginx.conf"), "-g", "daemon off;"],
          log_path: File.join(@dir, "nginx.log"))
        @group.start
        deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 10
        until @ports.values.all? { |p| listening?(p) }
          raise "nginx did not start: #{File.read(File.join(@dir, "nginx.log"))}" if Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
          sleep 0.02
        end
      end

      def stop
        @group&.stop
        FileUtils.rm_rf(@dir)
      end

      def url(kind, path = "/") = "#{(kind == :h2c) ? "http" : "https"}://127.0.0.1:#{@ports.fetch(kind)}#{path}"

      private

      def config
        <<~NGINX
          #{"user root;" if Process.uid.zero?}
          worker_processes 1;
          pid #{@dir}/nginx.pid;
          error_log #{@dir}/error.log warn;
          events { worker_connections 1024; }
          http {
            access_log off;
            client_body_temp_path #{@dir}/body;
            ssl_certificate #{@certs.chain};
            ssl_certificate_key #{@certs.key};
            server {
              listen 127.0.0.1:#{@ports[:tls_h2]} ssl http2;
              listen 127.0.0.1:#{@ports[:tls]} ssl;
              listen 127.0.0.1:#{@ports[:h2c]} http2;
              location / { return 200 "hello from nginx\\n"; }
            }
            server {
              listen 127.0.0.1:#{@ports[:expired]} ssl;
              ssl_certificate #{@expired.chain};
              ssl_certificate_key #{@expired.key};
              location / { return 200 "expired\\n"; }
            }
          }
        NGINX
      end

      def free_port
        s = TCPServer.new("127.0.0.1", 0)
        s.addr[1]
      ensure
        s&.close
      end

      def listening?(port)
        TCPSocket.new("127.0.0.1", port).close
        true
      rescue SystemCallError
        false
      end
    end

    def self.lab
      @lab ||= Lab.new.tap { |lab| Minitest.after_run { lab.stop } }
    end

    def setup
      super
      skip "nginx is not installed" unless NGINX
      skip "engine built without TLS or HTTP/2 (libssl-dev, libnghttp2-dev)" unless features?
    end

    def lab = self.class.lab

    def test_tls_http1_counts_a_full_handshake_per_connection
      run = run_ok(lab.url(:tls), "-n", 200, "-c", 4, "--cacert", lab.certs.ca, "--expect-body", "hello")
      assert_no_errors(run)
      t = run.json.fetch("transport")
      assert_equal "http/1.1", t["protocol"]
      assert_match(/\ATLSv1\.[23]\z/, t["tls"])
      opened = run.json.dig("connections", "opened")
      assert_equal opened, t.dig("tls_handshakes", "full"), run.describe
      assert_equal opened, t.dig("handshake_us", "count")
      assert_operator t.dig("handshake_us", "p50"), :>, 0
    end

    def test_close_mode_is_a_full_handshake_per_request_unless_resumed
      full = run_ok(lab.url(:tls), "-n", 60, "-c", 2, "--no-keep-alive")
      assert_no_errors(full)
      assert_equal 60, full.json.dig("good", "completed")
      # One connection per request (and one may be opened ahead as the run ends): each a full handshake.
      assert_equal full.json.dig("connections", "opened"), full.json.dig("transport", "tls_handshakes", "full")
      assert_operator full.json.dig("transport", "tls_handshakes", "full"), :>=, 60, full.describe
      resumed = run_ok(lab.url(:tls), "-n", 60, "-c", 2, "--no-keep-alive", "--tls-resume")
      assert_no_errors(resumed)
      hs = resumed.json.dig("transport", "tls_handshakes")
      assert_equal resumed.json.dig("connections", "opened"), hs["full"] + hs["resumed"]
      assert_operator hs["resumed"], :>=, 50, resumed.describe
    end

    def test_h2_over_tls_with_several_streams
      run = run_ok(lab.url(:tls_h2), "--http2", "--h2-streams", 8, "-n", 400, "-c", 2, "--cacert", lab.certs.ca,
        "--expect-body", "hello")
      assert_no_errors(run)
      assert_equal 400, run.json.dig("good", "completed")
      assert_equal "h2", run.json.dig("transport", "protocol")
      assert_equal 8, run.json.dig("transport", "h2_streams")
    end

    def test_h2c_with_prior_knowledge_in_the_open_model
      run = run_ok(lab.url(:h2c), "--http2", "--h2-streams", 4, "-R", 400, "-d", 0.5, "-c", 2)
      assert_no_errors(run)
      assert_equal "h2c", run.json.dig("transport", "protocol")
      assert_nil run.json.dig("transport", "tls")
      assert_operator run.json.dig("good", "completed"), :>=, 150
      assert_operator run.json["timeline"].sum { |s| s["good"] }, :>=, 150
    end

    def test_h2_to_a_server_without_it_is_an_alpn_mismatch
      run = run_ok(lab.url(:tls), "--http2", "-d", 0.3, "-c", 1)
      assert_operator run.errors["alpn_mismatch"], :>, 0, run.describe
      assert_equal run.errors["alpn_mismatch"], run.errors["total"]
      assert_equal 0, run.completed
    end

    def test_an_expired_certificate_is_a_certificate_error
      run = run_ok(lab.url(:expired), "--cacert", lab.expired.ca, "-d", 0.3, "-c", 1)
      assert_operator run.errors["certificate"], :>, 0, run.describe
      assert_equal run.errors["certificate"], run.errors["total"]
      # Not verified (no --cacert), the same server answers: the kind is the certificate's.
      assert_no_errors(run_ok(lab.url(:expired), "-n", 5, "-c", 1))
    end

    def test_a_certificate_from_another_authority_is_a_certificate_error
      run = run_ok(lab.url(:tls), "--cacert", lab.expired.ca, "-d", 0.3, "-c", 1)
      assert_operator run.errors["certificate"], :>, 0, run.describe
    end

    # Arena's verification of the transport (Verify::TransportCheck) through this engine.
    def test_transport_check_names_what_was_negotiated
      h2 = Load::Transport.parse("h2")
      ok = Verify::TransportCheck.new(transport: h2, engine_path: TestHelp.engine_path)
        .call(System::Bind.tcp(port: lab.ports[:tls_h2]).with_tls(lab.certs))
      assert ok.ok?, ok.problem
      assert_equal "h2", ok.protocol
      no_h2 = Verify::TransportCheck.new(transport: h2, engine_path: TestHelp.engine_path)
        .call(System::Bind.tcp(port: lab.ports[:tls]).with_tls(lab.certs))
      assert_equal "no connection over h2 (alpn_mismatch)", no_h2.problem
      expired = Verify::TransportCheck.new(transport: Load::Transport.parse("tls"), engine_path: TestHelp.engine_path)
        .call(System::Bind.tcp(port: lab.ports[:expired]).with_tls(lab.expired))
      assert_equal "no connection over tls (certificate)", expired.problem
    end

    def test_transport_flags_are_checked
      assert_one_line_error(run_engine("http://127.0.0.1:9/", "--tls-resume", "-n", 1), 2)
      assert_one_line_error(run_engine("http://127.0.0.1:9/", "--h2-streams", 4, "-n", 1), 2)
      assert_one_line_error(run_engine("http://127.0.0.1:9/", "--http2", "-p", 2, "-n", 1), 2)
      assert_one_line_error(run_engine("https://10.1.2.3:443/", "-n", 1), 2)
    end

    private

    def features?
      out = IO.popen([TestHelp.engine_path, "--version"], err: File::NULL, &:read)
      out.include?("tls") && out.include?("h2")
    end
  end
end
