let hiddenURL = "http://hidden.backend.com"
