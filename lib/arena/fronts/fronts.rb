# frozen_string_literal: true

require_relative "../system/bind"
require_relative "caddy"
require_relative "nginx"
require_relative "thruster"

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
  end
end
