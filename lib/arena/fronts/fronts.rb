# frozen_string_literal: true

module Arena
  # The proxies that can stand before a server (--front): what each needs to
  # be here, what it can serve, and how one is started. Each front listens on
  # loopback, terminates the run's transport itself and speaks plain
  # HTTP/1.1 to the server; its processes are measured apart from the
  # server's tree.
  module Fronts
    NAMES = %w[nginx caddy thruster].freeze

    module_function

    def klass(name) = {"nginx" => Fronts::Nginx, "caddy" => Fronts::Caddy, "thruster" => Fronts::Thruster}.fetch(name)

    # Why this front cannot be used for this transport here (nil: it can).
    def missing(name, transport)
      k = klass(name)
      return install_hint(name) unless k.binary
      why = k.transport_unsupported(transport)
      "--front #{name} --transport #{transport.name}: unsupported: #{why}" if why
    end

    def install_hint(name)
      {"nginx" => "nginx is not installed (apt-get install nginx-light)", "caddy" => "caddy is not installed (apt-get install caddy)",
       "thruster" => "thruster is not installed (its gem, in Arena's bundle)"}.fetch(name)
    end

    def build(name, upstreams:, dir:, machine:, transport:, certs:)
      bind = System::Bind.tcp
      bind = bind.with_tls(certs) if transport.tls?
      klass(name).new(upstreams: upstreams, dir: File.join(dir, name), machine: machine, bind: bind, transport: transport)
    end

    # A front is ready when a GET through it is answered.
    def wait_ready(front, timeout)
      exited = nil
      failure = Verify::HttpProbe.new(front.bind, timeout: 2).await("/", deadline: Support::Clock.now + timeout) { exited = front.group.exited }
      return unless failure
      tail = front.group.log_tail(3).join(" ")
      raise Error, "#{front.class.name.split("::").last.downcase} exited at start: #{tail}" if exited
      raise Error, "#{front.class.name.split("::").last.downcase} not ready after #{timeout}s (#{failure})"
    end
  end
end
