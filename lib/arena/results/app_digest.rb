# frozen_string_literal: true

module Arena
  module Results
    # What identifies the app a tune measured, as recorded (Bundle::AppDigest
    # takes it): the digest of its Gemfile.lock and a checksum of its code.
    AppDigest = Struct.new(:lock, :code, keyword_init: true) do
      # What differs from `other` (a recorded AppDigest), in words; nil when the same app.
      def change_from(other)
        return "its Gemfile.lock changed" if lock != other.lock
        return "its code changed" if code != other.code
        nil
      end
    end
  end
end
