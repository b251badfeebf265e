# frozen_string_literal: true

require "rbconfig"
require "shellwords"
require "socket"
require "uri"
require_relative "../core"

module Arena
  module Remote
    # One host reached over SSH: ssh://[user@]host[:port]. Builds the ssh argv
    # (never a local shell string); the remote command is one string because
    # that is what SSH carries, with every word escaped.
    class Host
      attr_reader :user, :name, :port, :url

      # What a POSIX login name may be (useradd's own rule, less the $).
      USER = /\A[A-Za-z_][A-Za-z0-9_.-]{0,31}\z/

      def self.parse(url)
        uri = URI.parse(url.to_s)
        raise UsageError, "#{url}: expected ssh://[user@]host[:port]" unless uri.scheme == "ssh" && uri.host && !uri.host.empty?
        raise UsageError, "#{url}: no path, query or password in an ssh:// host" unless ["", "/"].include?(uri.path.to_s) && uri.query.nil? && uri.password.nil?
        host = uri.host.delete_prefix("[").delete_suffix("]")
        raise UsageError, "#{url}: bad host name" if host.start_with?("-") || host =~ /[^\w.:-]/
        raise UsageError, "#{url}: bad user name (letters, digits, . _ -; not starting with -)" if uri.user && !uri.user.match?(USER)
        new(user: uri.user, name: host, port: uri.port, url: url.to_s)
      rescue URI::InvalidURIError
        raise UsageError, "#{url}: expected ssh://[user@]host[:port]"
      end

      def initialize(user:, name:, port:, url:)
        @user = user
        @name = name
        @port = port
        @url = url
      end

      # The address the engine connects to, resolved here once.
      def address
        @address ||= Addrinfo.getaddrinfo(name, nil, nil, :STREAM).first&.ip_address ||
          raise(Error, "#{url}: cannot resolve #{name}")
      rescue SocketError => e
        raise Error, "#{url}: cannot resolve #{name}: #{e.message}"
      end

      def to_s = url
    end

    # How to reach hosts: ssh options shared by every connection, and the
    # remote command that starts `arena agent` there.
    class Ssh
      EXE = File.expand_path("../../../exe/arena", __dir__)

      def self.default_command = [RbConfig.ruby, EXE, "agent"]

      def initialize(identity: nil, known_hosts: nil, command: nil)
        @identity = identity
        @known_hosts = known_hosts
        @command = command ? Shellwords.split(command) : self.class.default_command
        [@identity, @known_hosts].compact.each { |f| raise UsageError, "#{f}: no such file" unless File.file?(f) }
      end

      def argv(host)
        args = ["ssh", "-T", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10",
          "-o", "ServerAliveInterval=2", "-o", "ServerAliveCountMax=3"]
        args += ["-i", @identity, "-o", "IdentitiesOnly=yes"] if @identity
        # Always: an unknown or changed host key ends the connection, never a prompt or a silent accept.
        args += ["-o", "StrictHostKeyChecking=yes"]
        args += ["-o", "UserKnownHostsFile=#{@known_hosts}"] if @known_hosts
        args += ["-p", host.port.to_s] if host.port
        args += ["-l", host.user] if host.user
        args + ["--", host.name, Shellwords.join(@command)]
      end
    end
  end
end
