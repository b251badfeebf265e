# frozen_string_literal: true

require "openssl"
require "fileutils"

module Arena
  module Launch
    # A throwaway certificate authority and a leaf for 127.0.0.1 (and ::1,
    # localhost), made for one run and written into its directory: each server
    # is handed the leaf and its key in its own way, the engine verifies
    # against the CA, so a wrong or expired certificate is an error kind of its
    # own instead of passing unseen. Nothing is installed in the system's store.
    class Certificates
      Files = Struct.new(:ca, :cert, :key, :chain, :ca_key, keyword_init: true) do
        def to_h = {"ca" => ca, "cert" => cert, "key" => key}
      end

      # expired: a leaf whose validity ended yesterday (for the test that an
      # expired certificate is told apart).
      def self.write(dir:, expired: false, now: Time.now)
        new(now: now).write(dir, expired: expired)
      end

      # The run's certificates: made once, then the same files for every
      # server of the run (a server started earlier keeps serving what it
      # loaded, so they must not be made again under it).
      def self.for_run(dir:)
        files = Files.new(ca: File.join(dir, "ca.pem"), cert: File.join(dir, "cert.pem"), key: File.join(dir, "key.pem"),
          chain: File.join(dir, "chain.pem"), ca_key: File.join(dir, "ca-key.pem")).freeze
        return files if files.to_a.all? { |path| File.file?(path) }
        write(dir: dir)
      end

      def initialize(now: Time.now)
        @now = now
      end

      def write(dir, expired: false)
        FileUtils.mkdir_p(dir)
        # RSA 2048, the common deployed kind, and the only one every server
        # here reads (the localhost gem Falcon uses loads RSA keys only).
        ca_key = OpenSSL::PKey::RSA.new(2048)
        ca = certificate(subject: "/CN=Arena throwaway CA", key: ca_key, issuer: nil, issuer_key: ca_key, ca: true)
        leaf_key = OpenSSL::PKey::RSA.new(2048)
        leaf = certificate(subject: "/CN=127.0.0.1", key: leaf_key, issuer: ca, issuer_key: ca_key, ca: false,
          expired: expired)
        files = Files.new(ca: File.join(dir, "ca.pem"), cert: File.join(dir, "cert.pem"),
          key: File.join(dir, "key.pem"), chain: File.join(dir, "chain.pem"), ca_key: File.join(dir, "ca-key.pem")).freeze
        File.write(files.ca, ca.to_pem)
        File.write(files.cert, leaf.to_pem)
        File.write(files.chain, leaf.to_pem + ca.to_pem)
        File.write(files.key, leaf_key.private_to_pem, perm: 0o600) # PKCS#8: what every server here reads
        File.write(files.ca_key, ca_key.private_to_pem, perm: 0o600)
        files
      end

      private

      def certificate(subject:, key:, issuer:, issuer_key:, ca:, expired: false)
        cert = OpenSSL::X509::Certificate.new
        cert.version = 2
        cert.serial = OpenSSL::BN.rand(64)
        cert.subject = OpenSSL::X509::Name.parse(subject)
        cert.issuer = issuer ? issuer.subject : cert.subject
        cert.public_key = key
        cert.not_before = expired ? @now - 3 * 86_400 : @now - 3600
        cert.not_after = expired ? @now - 86_400 : @now + 2 * 86_400
        ext = OpenSSL::X509::ExtensionFactory.new(issuer || cert, cert)
        if ca
          cert.add_extension(ext.create_extension("basicConstraints", "CA:TRUE", true))
          cert.add_extension(ext.create_extension("keyUsage", "keyCertSign,cRLSign", true))
        else
          cert.add_extension(ext.create_extension("basicConstraints", "CA:FALSE", true))
          cert.add_extension(ext.create_extension("subjectAltName", "IP:127.0.0.1,IP:::1,DNS:localhost", false))
          cert.add_extension(ext.create_extension("extendedKeyUsage", "serverAuth", false))
        end
        cert.sign(issuer_key, OpenSSL::Digest.new("SHA256"))
        cert
      end
    end
  end
end
