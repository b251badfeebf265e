# frozen_string_literal: true

require "digest"
require "json"

module Arena
  module Bundle
    # A cached bundle directory is reused only when its files are the very
    # ones written when it was finished: a digest of each is sealed beside
    # them, and any change (a person's edit, a build cut short, a second
    # Arena half-way through writing) means "build again", never "use it".
    module Seal
      FILE = "arena-seal.json"

      module_function

      def write(dir, names)
        File.write(File.join(dir, FILE), JSON.generate(names.to_h { |n| [n, digest(File.join(dir, n))] }))
      end

      def intact?(dir, names)
        sealed = JSON.parse(File.read(File.join(dir, FILE)))
        (names | sealed.keys).all? { |n| sealed[n] && sealed[n] == digest(File.join(dir, n)) }
      rescue JSON::ParserError, SystemCallError
        false
      end

      def digest(path) = File.file?(path) ? Digest::SHA256.file(path).hexdigest : nil
    end
  end
end
